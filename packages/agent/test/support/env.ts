import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedModelServer } from "@knightcode/testkit";
import { ModelRegistry } from "../../src/models/registry.js";
import { AgentSession } from "../../src/run/session.js";
import { DEFAULT_RUN_SETTINGS, type AgentSessionOptions, type RunSettings } from "../../src/run/session-options.js";
import type { SessionEvent } from "../../src/run/events.js";
import type { SyncFile } from "@knightcode/store/session/flusher";
import { SessionFile } from "@knightcode/store/session/session-file";

/** A real session file in the run's temp dir, with a helper to pick entries by kind. */
export class TestTranscript {
  private constructor(readonly file: SessionFile) {}

  static async create(dir: string, cwd: string, syncFile?: SyncFile): Promise<TestTranscript> {
    return new TestTranscript(await SessionFile.create({ dir, cwd, ...(syncFile ? { syncFile } : {}) }));
  }

  append(entry: never, options?: { durable?: boolean }) {
    return this.file.append(entry, options);
  }

  appendThenSync(entry: never) {
    return this.file.appendThenSync(entry);
  }

  branch() {
    return this.file.branch();
  }

  loadBranch() {
    return this.file.loadBranch();
  }

  summary() {
    return this.file.summary();
  }

  // Tests read kind-specific fields freely.
  ofType(type: string): Record<string, any>[] {
    return this.file.branch().filter((e) => e.type === type) as unknown as Record<string, any>[];
  }
}

export interface RunEnv {
  dir: string;
  agentDir: string;
  cwd: string;
  model: ScriptedModelServer;
  registry: ModelRegistry;
  session(
    options?: Partial<Omit<AgentSessionOptions, "settings">> & { settings?: Partial<RunSettings>; syncFile?: SyncFile },
  ): Promise<{ session: AgentSession; transcript: TestTranscript; events: SessionEvent[] }>;
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
    async session({ syncFile, ...options } = {}) {
      const transcript = await TestTranscript.create(join(dir, "sessions"), cwd, syncFile);
      const settings = { ...DEFAULT_RUN_SETTINGS, retry: FAST_RETRY, ...options.settings };
      const session = new AgentSession({
        threadId: "thread-1",
        cwd,
        registry,
        systemPrompt: "You are a test agent.",
        tools: [],
        ...options,
        transcript: transcript.file,
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
