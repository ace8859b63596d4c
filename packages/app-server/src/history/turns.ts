import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { SessionEntry } from "@knightcode/agent";
import { boundErrorMessage } from "@knightcode/agent";
import { contentText, ordinalId, toolCallOutcome, userItem, type Item } from "../turns/item-shapes.js";

export interface HistoryTurn {
  id: string;
  status: "inProgress" | "completed" | "failed" | "interrupted";
  startedAt: number;
  completedAt?: number;
  error?: { message: string; kind: "auth" | "rateLimit" | "contextOverflow" | "network" | "provider" | "other" };
  files?: { path: string; additions: number; deletions: number }[];
  items?: Item[];
}

type Fields = Record<string, unknown>;

/**
 * Rebuilds one turn's items from its saved entries with the numbering the
 * live stream used (turns/live-items.ts): non-tool items take the next
 * ordinal and every top-level item the next index, in the order they
 * started. A failed reply's parts consumed their numbers live before being
 * withdrawn, so they consume them here too, unseen.
 */
class TurnBuilder {
  private ordinal = 0;
  private index = 0;
  readonly items: Item[] = [];
  private readonly results = new Map<string, { message: ToolResultMessage }>();
  private readonly declined = new Set<string>();

  constructor(
    private readonly turnId: string,
    entries: readonly SessionEntry[],
  ) {
    for (const entry of entries) {
      const message = (entry as unknown as Fields).message as AgentMessage | undefined;
      if (entry.type === "message" && message?.role === "toolResult") this.results.set(message.toolCallId, { message });
      const fields = entry as unknown as Fields;
      if (entry.type === "approval" && (fields.decision === "decline" || fields.decision === "cancel")) this.declined.add(String(fields.toolCallId));
    }
  }

  private nextId(): string {
    return ordinalId(this.turnId, this.ordinal++);
  }

  add(entry: SessionEntry): void {
    const fields = entry as unknown as Fields;
    switch (entry.type) {
      case "message":
        this.addMessage(fields.message as AgentMessage, entry.timestamp);
        break;
      case "custom_message":
        if (fields.display === false) break;
        this.items.push({
          id: this.nextId(),
          type: "extensionMessage",
          index: this.index++,
          completedAt: entry.timestamp,
          text: contentText(fields.content as string),
          customType: String(fields.customType),
        } as Item);
        break;
      case "compaction":
        this.items.push({ id: this.nextId(), type: "compaction", index: this.index++, completedAt: entry.timestamp, summary: String(fields.summary) } as Item);
        break;
      default:
        break;
    }
  }

  private addMessage(message: AgentMessage, savedAt: number): void {
    if (message.role === "user") this.items.push(userItem(this.nextId(), this.index++, message, savedAt));
    else if (message.role === "assistant") this.addAssistant(message, savedAt);
  }

  private addAssistant(message: AssistantMessage, savedAt: number): void {
    const failed = message.stopReason === "error";
    const seen = new Set<string>();
    for (const block of message.content) {
      const type = block.type === "thinking" ? "reasoning" : block.type === "text" ? "agentMessage" : undefined;
      if (!type || seen.has(type)) continue;
      seen.add(type);
      const id = this.nextId();
      const index = this.index++;
      if (failed) continue;
      const text = message.content
        .flatMap((b) => (type === "reasoning" ? (b.type === "thinking" ? [b.thinking] : []) : b.type === "text" ? [b.text] : []))
        .join("\n");
      this.items.push({ id, type, index, startedAt: message.timestamp, completedAt: savedAt, text } as Item);
    }
    if (failed) return;
    for (const block of message.content) {
      if (block.type !== "toolCall") continue;
      const result = this.results.get(block.id)?.message;
      if (!result) continue;
      this.items.push({
        id: block.id,
        type: "toolCall",
        index: this.index++,
        startedAt: savedAt,
        completedAt: result.timestamp,
        name: block.name,
        input: block.arguments,
        ...toolCallOutcome(result, result.isError, this.declined.has(block.id)),
      } as Item);
    }
  }
}

/**
 * Groups a stretch of a branch (oldest first) into turns: the entries from a
 * turn_start to its turn_end. A turn with no end entry reads as
 * interrupted, with no completion time. Entries outside any turn (model
 * changes, a name) belong to none.
 */
export function turnsFromEntries(entries: readonly SessionEntry[], options: { withItems?: boolean } = {}): HistoryTurn[] {
  const turns: HistoryTurn[] = [];
  let open: { turn: HistoryTurn; entries: SessionEntry[] } | undefined;
  const close = () => {
    if (!open) return;
    if (options.withItems !== false) {
      const builder = new TurnBuilder(open.turn.id, open.entries);
      for (const entry of open.entries) builder.add(entry);
      open.turn.items = builder.items;
    }
    turns.push(open.turn);
    open = undefined;
  };
  for (const entry of entries) {
    const fields = entry as unknown as Fields;
    if (entry.type === "turn_start") {
      close();
      open = { turn: { id: entry.id, status: "interrupted", startedAt: entry.timestamp }, entries: [] };
    } else if (entry.type === "turn_end" && open && fields.turnId === open.turn.id) {
      const turn = open.turn;
      turn.status = fields.status as HistoryTurn["status"];
      turn.completedAt = entry.timestamp;
      const error = fields.error as HistoryTurn["error"] | undefined;
      if (error && turn.status === "failed") turn.error = { message: boundErrorMessage(error.message), kind: error.kind };
      if (Array.isArray(fields.files)) turn.files = fields.files as HistoryTurn["files"];
      close();
    } else if (open) {
      open.entries.push(entry);
    }
  }
  close();
  return turns;
}
