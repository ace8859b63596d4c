import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedModelServer } from "@knightcode/testkit";
import { ModelRegistry } from "../../src/models/registry.js";
import { AgentSession, DEFAULT_RUN_SETTINGS, type AgentSessionOptions, type RunSettings } from "../../src/run/session.js";
import type { SessionEvent } from "../../src/run/events.js";
import type { Transcript, TranscriptEntry } from "../../src/run/transcript.js";

/**
 * A transcript kept as JSONL lines in memory, for run tests that are about
 * the run, not the file format (the session file has its own tests).
 */
export class LineTranscript implements Transcript {
  readonly lines: string[] = [];
  private entries: TranscriptEntry[] = [];
  private next = 1;

  append(entry: { type: string; [field: string]: unknown }): TranscriptEntry {
    const full = { ...entry, id: `e${this.next++}`, parentId: this.entries.at(-1)?.id ?? null, timestamp: Date.now() } as TranscriptEntry;
    this.lines.push(JSON.stringify(full));
    this.entries.push(JSON.parse(this.lines.at(-1)!) as TranscriptEntry);
    return full;
  }

  branch(): readonly TranscriptEntry[] {
    return this.entries;
  }

  ofType(type: string): TranscriptEntry[] {
    return this.entries.filter((e) => e.type === type);
  }
}

export interface RunEnv {
  dir: string;
  agentDir: string;
  cwd: string;
  model: ScriptedModelServer;
  registry: ModelRegistry;
  session(options?: Partial<Omit<AgentSessionOptions, "settings">> & { settings?: Partial<RunSettings> }): { session: AgentSession; transcript: LineTranscript; events: SessionEvent[] };
  close(): Promise<void>;
}

export const FAST_RETRY: RunSettings["retry"] = { enabled: true, maxRetries: 3, baseDelayMs: 5, maxRetryDelayMs: 20 };

export async function runEnv(models?: Parameters<ScriptedModelServer["modelsJson"]>[0]): Promise<RunEnv> {
  const dir = mkdtempSync(join(tmpdir(), "kc-run-"));
  const agentDir = join(dir, "agent");
  const cwd = join(dir, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const model = await ScriptedModelServer.start();
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(model.modelsJson(models)));
  const registry = new ModelRegistry(agentDir, {});
  return {
    dir,
    agentDir,
    cwd,
    model,
    registry,
    session(options = {}) {
      const transcript = (options.transcript as LineTranscript | undefined) ?? new LineTranscript();
      const settings = { ...DEFAULT_RUN_SETTINGS, retry: FAST_RETRY, ...options.settings };
      const session = new AgentSession({
        threadId: "thread-1",
        cwd,
        registry,
        systemPrompt: "You are a test agent.",
        tools: [],
        ...options,
        transcript,
        settings,
      });
      const events: SessionEvent[] = [];
      session.subscribe((event) => events.push(event));
      return { session, transcript, events };
    },
    async close() {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function eventTypes(events: SessionEvent[]): string[] {
  return events.map((e) => (e.type === "message_start" || e.type === "message_end" ? `${e.type}:${e.message.role}` : e.type));
}
