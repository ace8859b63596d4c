import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { TurnEndStatus } from "@knightcode/store/session/format";
import type { BranchSummary } from "@knightcode/store/session/summary";
import type { TurnError } from "./error-kind.js";

/**
 * What the agent run needs of a session file: append entries and read the
 * current branch. The session file implements it; tests may use a file in a
 * temp dir.
 */
export interface TranscriptEntry {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: number;
}

export interface Transcript {
  append(entry: never, options?: { durable?: boolean }): TranscriptEntry;
  /** Appends, then syncs off the event loop: `durable` settles once the entry is on disk (rejects when the sync fails). */
  appendThenSync(entry: never): { entry: TranscriptEntry; durable: Promise<void> };
  /** The current branch; a lazily opened transcript needs `loadBranch()` first. */
  branch(): readonly TranscriptEntry[];
  /** Reads the branch when it is not in memory yet (once). */
  loadBranch(): Promise<void>;
  /** What the branch leaves behind, available before the branch is loaded. */
  summary(): BranchSummary;
  /** The entry the next append continues from. */
  readonly leafId?: string | null;
}

/** An entry's kind-specific fields; the run reads them by name. */
function fields(entry: TranscriptEntry): Record<string, unknown> {
  return entry as unknown as Record<string, unknown>;
}

export type { TurnEndStatus };

export interface TurnEndFields {
  turnId: string;
  status: TurnEndStatus;
  error?: TurnError;
  files?: { path: string; additions: number; deletions: number }[];
}

/**
 * The messages the model sees for a branch: after the latest compaction,
 * its summary followed by the messages it kept; otherwise every message.
 * Failed and interrupted replies stay in the transcript but not here.
 */
export function contextMessages(branch: readonly TranscriptEntry[]): { messages: AgentMessage[]; entryIds: string[] } {
  let start = 0;
  let summary: { summary: string; timestamp: number } | undefined;
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = fields(branch[i]!);
    if (entry.type !== "compaction") continue;
    summary = { summary: String(entry.summary), timestamp: Number(entry.timestamp) };
    const kept = branch.findIndex((e) => e.id === entry.firstKeptEntryId);
    start = kept === -1 ? i + 1 : kept;
    break;
  }
  const messages: AgentMessage[] = [];
  const entryIds: string[] = [];
  if (summary) {
    messages.push({ role: "compactionSummary", summary: summary.summary, timestamp: summary.timestamp });
    entryIds.push("");
  }
  for (const base of branch.slice(start)) {
    const entry = fields(base) as Record<string, unknown> & TranscriptEntry;
    if (entry.type === "message") {
      const message = entry.message as AgentMessage;
      // A failed or interrupted reply carries nothing the model should build on; providers refuse some of them.
      if (message.role === "assistant" && (message.stopReason === "error" || message.stopReason === "aborted")) continue;
      messages.push(message);
      entryIds.push(entry.id);
    } else if (entry.type === "custom_message") {
      messages.push({
        role: "custom",
        customType: String(entry.customType),
        content: entry.content as never,
        display: entry.display !== false,
        details: entry.details,
        timestamp: entry.timestamp,
      });
      entryIds.push(entry.id);
    }
  }
  return { messages, entryIds };
}
