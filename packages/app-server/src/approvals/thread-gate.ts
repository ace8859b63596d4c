import type { CallClassification } from "@knightcode/agent/approvals/classifier";
import type { ThreadRuntime } from "@knightcode/agent/thread/load-runtime";
import type { ToolCallInfo } from "@knightcode/agent/run/session-options";
import type { TurnController } from "@knightcode/agent/turn/controller";
import type { WorkspaceState } from "@knightcode/store/session/format";
import type { Asker } from "../asking/asker.js";
import type { Logger } from "../host/log.js";
import type { PayloadSink } from "../payloads/store.js";
import { ApprovalGate, type GateRecord } from "./gate.js";
import type { NetworkGrants } from "./network-grants.js";
import type { ThreadModes } from "./thread-modes.js";

/** What a thread's approval gate is built on: its runtime, modes, grants, asker and turns. */
export interface ThreadGateParts {
  threadId: string;
  place: WorkspaceState;
  runtime: ThreadRuntime;
  modes: ThreadModes;
  network: NetworkGrants;
  asker: Asker;
  turns: TurnController;
  log: Logger;
  record(entry: GateRecord): void;
  /** A yes-or-no question to the thread's user (a `ui/dialog` confirm); `onUnattended` runs when it was held until nobody came. */
  confirm(title: string, message: string, signal: AbortSignal | undefined, onUnattended?: () => void): Promise<boolean>;
  payloads(): PayloadSink;
}

/** The approval gate of a loaded thread. */
export function threadGate(parts: ThreadGateParts): ApprovalGate {
  const { runtime, modes, place, turns } = parts;
  return new ApprovalGate({
    threadId: parts.threadId,
    cwd: place.cwd,
    approvalMode: () => modes.approvalMode,
    planMode: () => modes.planMode,
    isBuiltinTool: (name) => runtime.isBuiltinTool(name),
    controls: {
      agentDir: runtime.agentDir,
      codePathOf: (path) => runtime.codePathOf(path),
      ...(place.mode === "worktree" && place.path !== undefined ? { ownWorktree: place.path } : {}),
    },
    secretFiles: runtime.secretFiles,
    turnId: () => turns.runningTurnId,
    asker: parts.asker,
    record: (entry) => parts.record(entry),
    classify: (call, signal) => classify(parts, call, signal),
    confirm: (title, message, signal, onUnattended) => parts.confirm(title, message, signal, onUnattended),
    interruptTurn: () => turns.interrupt(),
    payloads: () => parts.payloads(),
    network: parts.network,
    sandboxNetworkOff: async () => {
      const state = await runtime.sandbox?.state();
      return state?.wanted === true && state.available && !state.network;
    },
  });
}

/** The classifier gate's verdict; a classifier that could not answer leaves one line in the log. */
async function classify(parts: ThreadGateParts, call: ToolCallInfo, signal: AbortSignal | undefined): Promise<CallClassification | undefined> {
  const judged = await parts.runtime.classifyToolCall(call, signal);
  if (judged?.verdict === "unjudged" && !signal?.aborted)
    parts.log.warn(`classifier gate: ${call.toolName} call ${call.toolCallId} needs confirmation: ${judged.reason}`);
  return judged;
}
