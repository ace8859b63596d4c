import { ThreadRuntime } from "@knightcode/agent/thread/load-runtime";
import { TranscriptWriter } from "@knightcode/agent/run/transcript-writer";
import { TurnController } from "@knightcode/agent/turn/controller";
import type { SessionFile } from "@knightcode/store/session/session-file";
import type { ThreadEnvironment } from "@knightcode/agent/thread/runtime-options";
import type { Warning } from "@knightcode/system/warning";
import type { ApprovalMode } from "@knightcode/app-server-protocol";
import { NetworkGrants } from "../approvals/network-grants.js";
import { ThreadModes, validApprovalMode } from "../approvals/thread-modes.js";
import type { Logger } from "../host/log.js";
import type { PayloadSink } from "../payloads/store.js";
import type { PendingRequests } from "../asking/pending-requests.js";
import { WIRE_TURN_ERRORS } from "../turns/notifier.js";
import { askUser } from "../ui/ask-user.js";
import { UiBridge } from "../ui/bridge.js";
import { ThreadDialogs } from "../ui/dialogs.js";
import { reviewPlan } from "../ui/plan-review.js";
import { LoadedThread, type Broadcaster } from "./loaded-thread.js";
import { ThreadCore, type ParentLink } from "./thread-core.js";
import type { SubAgentHandler } from "@knightcode/agent/tools/subagents";
import type { TokenUsage } from "@knightcode/agent/run/usage";
import type { ThreadSequences } from "./sequences.js";

/** What opening a thread needs of the server. */
export interface OpenThreadDeps {
  environment: ThreadEnvironment;
  log: Logger;
  broadcaster: Broadcaster;
  /** The seq of every thread, kept by the manager across unloads. */
  sequences: ThreadSequences;
  /** How many of a thread's latest notifications are kept to replay. */
  replayEvents: number;
  /** A terminal host's threads run everything. */
  terminal: boolean;
  payloads(): PayloadSink;
  env: NodeJS.ProcessEnv;
  /** A command's ctx.newSession(): the thread `threadId`, replaced. */
  replace(threadId: string): Promise<string>;
  onFatal(thread: LoadedThread): void;
  onTurnStarted(thread: LoadedThread): void;
  /** Where the server lists what its threads wait on. */
  requests: PendingRequests;
  /** For a sub-agent: its parent. */
  parent?: ParentLink;
  /** For a thread that may start sub-agents: what its sub-agent tools do. */
  subAgents?: SubAgentHandler;
  /** Only these tools are offered (a sub-agent started with a subset). */
  onlyTools?: readonly string[];
  /** Its sub-agents' usage as this process follows them. */
  liveSubagentUsage?(): ReadonlyMap<string, TokenUsage> | undefined;
}

/**
 * Builds a thread from its transcript, each part on parts that already
 * exist: its core (file, writer, subscribers, asker) and the owner of its
 * turns first, then its dialogs, UI and modes, then the runtime that loads
 * its settings and extensions on them, and last what is built on the
 * runtime (LoadedThread). A failure closes the file.
 */
export async function openThread(deps: OpenThreadDeps, file: SessionFile): Promise<LoadedThread> {
  const id = file.header.id;
  const log = deps.log;
  const turns = new TurnController({ threadId: id, errors: WIRE_TURN_ERRORS, log });
  let loaded: ThreadRuntime | undefined;
  const core = new ThreadCore({
    file,
    log,
    writer: new TranscriptWriter(file),
    turns,
    // Nothing is asked before the runtime exists: its settings say how long a request is held.
    holdMs: () => (loaded?.settings.effective.requests.holdSeconds ?? 0) * 1000,
    requests: deps.requests,
    sequences: deps.sequences,
    broadcaster: deps.broadcaster,
    replayEvents: deps.replayEvents,
    ...(deps.parent ? { parent: deps.parent } : {}),
  });
  const dialogs = new ThreadDialogs({
    threadId: id,
    ask: (params, signal) => core.asker.ask("ui/dialog", params, { kind: "dialog", signal }),
    turn: () => {
      const signal = turns.signal;
      return signal ? { id: turns.runningTurnId, signal } : undefined;
    },
  });
  const ui = new UiBridge({
    threadId: id,
    send: (method, params) => core.send(method, params),
    warn: (warning) => core.warn(warning),
    log: (line) => log.info(line),
    dialogs,
  });
  const state = file.summary();
  const modes = new ThreadModes({
    threadId: id,
    saved: {
      ...(state.approvalMode !== undefined ? { approvalMode: state.approvalMode } : {}),
      ...(state.planMode !== undefined ? { planMode: state.planMode } : {}),
    },
    terminal: deps.terminal,
    record: (entry) => core.writer.append(entry),
    send: (method, params) => core.send(method, params),
  });
  const network = new NetworkGrants();
  const interrupt = () => turns.interrupt();
  let created: { runtime: ThreadRuntime; warnings: Warning[] };
  try {
    created = await ThreadRuntime.create({
      environment: deps.environment,
      threadId: id,
      // Where the thread runs: its worktree, or the folder it was started in.
      cwd: core.place.cwd,
      sandboxing: {
        ...(core.place.mode === "worktree" && core.place.path !== undefined ? { folder: core.place.path } : {}),
        unsandboxed: () => modes.unsandboxed(),
        networkGranted: (callId) => network.granted(callId),
      },
      transcript: file,
      writer: core.writer,
      turns,
      planMode: () => modes.planMode,
      mode: "desktop",
      hasUI: true,
      ui,
      onWarning: (warning) => core.warn(warning),
      askUser: (questions, call) => askUser({ threadId: id, asker: core.asker, runningTurnId: () => turns.runningTurnId, interrupt }, questions, call),
      submitPlan: (_plan, signal) => reviewPlan({ dialogs, endPlanMode: () => modes.setPlanMode(false), interrupt }, signal),
      ...(deps.subAgents ? { subAgents: deps.subAgents } : {}),
      ...(deps.onlyTools ? { onlyTools: deps.onlyTools } : {}),
      // Until the thread's approval gate is built on its runtime, a call has nobody to ask: it is refused, never allowed.
      approvalGate: async () => ({ block: true, reason: "The thread is still loading; no tool call may run yet." }),
      newSession: async () => {
        if (turns.runningTurnId !== undefined) throw new Error("a new session cannot start while a turn runs");
        return deps.replace(id);
      },
    });
  } catch (error) {
    file.close();
    throw error;
  }
  const { runtime } = created;
  loaded = runtime;
  core.loadWarnings.unshift(...created.warnings);
  modes.useDefault(defaultApprovalMode(deps.terminal, runtime));
  return new LoadedThread({
    core,
    runtime,
    ui,
    modes,
    network,
    broadcaster: core.broadcaster,
    onFatal: (failed) => deps.onFatal(failed),
    payloads: deps.payloads,
    onTurnStarted: (started) => deps.onTurnStarted(started),
    env: deps.env,
    ...(deps.liveSubagentUsage ? { liveSubagentUsage: deps.liveSubagentUsage } : {}),
  });
}

/** A terminal host's threads run everything; a desktop thread takes the settings it loaded (trusted project settings included). */
function defaultApprovalMode(terminal: boolean, runtime: ThreadRuntime): ApprovalMode {
  if (terminal) return "fullAccess";
  return validApprovalMode(runtime.settings.effective.defaultApprovalMode);
}
