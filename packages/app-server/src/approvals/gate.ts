import { analyzeShellCommand, formatPrefix, type CallClassification, type ToolCallInfo } from "@knightcode/agent";
import { AppServerError, type ApprovalMode, type PayloadRef, type ServerRequestParams } from "@knightcode/app-server-protocol";
import { FIELD_LIMIT, jsonBytes } from "../payloads/refs.js";
import type { PayloadSink } from "../payloads/store.js";
import type { Connection } from "../rpc/connection.js";
import { confirmation, unconfirmedReason } from "./classifier-gate.js";
import type { ControlLookups } from "./control-paths.js";
import { classifyTool, interpretAnswer, offeredDecisions, verdict, type Decision } from "./policy.js";

export interface GateHost {
  readonly threadId: string;
  readonly cwd: string;
  approvalMode(): ApprovalMode;
  /** Whether the active tool of this name is ours rather than an extension's. */
  isBuiltinTool(name: string): boolean;
  /** The agent folder and the code the settings load: writes there always ask. */
  readonly controls: ControlLookups;
  turnId(): string | undefined;
  /** Open subscribers, oldest first. */
  subscribers(): Connection[];
  lastInitiator(): Connection | undefined;
  /** An approval is open until the returned release runs: the thread's waitingOn. */
  waitOn(): () => void;
  record(entry: GateRecord): void;
  /**
   * The classifier gate's verdict on a call the approval gate would let run
   * without asking; undefined while the classifier gate is off.
   */
  classify?(call: ToolCallInfo, signal: AbortSignal | undefined): Promise<CallClassification | undefined>;
  /** Asks the user a yes-or-no question (a `ui/dialog` confirm); false for no, a dismissal or nobody to ask. */
  confirm(title: string, message: string, signal: AbortSignal | undefined): Promise<boolean>;
  /** Where an input too large for the request line goes. */
  payloads(): PayloadSink;
  /** cancel stops the whole turn, as Escape does. */
  interruptTurn(): void;
}

/** What the gate writes to the transcript: the user's answer to an approval, or the classifier's verdict and the user's answer to it. */
export type GateRecord =
  | { type: "approval"; toolCallId: string; tool: string; decision: Decision; message?: string }
  | { type: "classification"; toolCallId: string; tool: string; verdict: CallClassification["verdict"]; reason: string; confirmed?: boolean };

interface Outstanding {
  target: Connection;
  attempt: AbortController;
  moveTo?: Connection;
  moved: boolean;
}

const DECLINED = "The user declined this tool call.";
const CANCELLED = "The user cancelled this tool call; the turn stops.";

/**
 * A thread's approval gate. Every grant means exactly what the user saw:
 * session grants last for this load only, a shell grant covers only
 * commands that independently yield the granted prefix, and anything but an
 * offered decision is a decline. One subscriber is asked at a time: the
 * most recent initiator first; the request moves when that subscriber leaves
 * and is cancelled when nobody is left.
 *
 * A call the gate would let run without asking (by the mode, a session grant
 * or a prefix grant) goes to the classifier gate, when one is configured,
 * unless it is a read-only tool: the user is asked at most once about a call.
 */
export class ApprovalGate {
  private readonly sessionTools = new Set<string>();
  private readonly grantedPrefixes = new Map<string, string[][]>();
  /** Requests on the wire now; the agent preflights calls one by one, but nothing here relies on it. */
  private readonly outstanding = new Set<Outstanding>();
  /** Calls the user declined or cancelled, for their items' status. */
  readonly declined = new Set<string>();

  constructor(private readonly host: GateHost) {}

  check = async (call: ToolCallInfo, signal: AbortSignal | undefined): Promise<{ block: true; reason: string } | undefined> => {
    const builtin = this.host.isBuiltinTool(call.toolName);
    const kind = classifyTool(call.toolName, builtin);
    const { allow, reason } = verdict({
      mode: this.host.approvalMode(),
      kind,
      input: call.args,
      workspace: this.host.cwd,
      controls: this.host.controls,
    });
    if (allow) return kind === "readOnly" ? undefined : this.screen(call, signal);
    const shellName = call.toolName === "powershell" ? "powershell" : "bash";
    const command = (call.args as { command?: unknown } | null)?.command;
    // Only our own shell tools run a command the way the prefix analysis reads it.
    const prefix = kind === "shell" && builtin && typeof command === "string" ? analyzeShellCommand(command, shellName).prefix : undefined;
    if (!reason) {
      if (kind === "shell" && prefix && this.covered(shellName, prefix)) return this.screen(call, signal);
      if (kind !== "shell" && this.sessionTools.has(call.toolName)) return this.screen(call, signal);
    }
    // A write with a reason (outside the workspace, into a control place) is approved one at a time: no session grant stretches to it.
    const offered = offeredDecisions(kind, reason ? undefined : prefix).filter((d) => !(reason && d === "acceptForSession"));
    const answer = await this.ask(
      {
        threadId: this.host.threadId,
        turnId: this.host.turnId() ?? "",
        itemId: call.toolCallId,
        tool: call.toolName,
        ...this.inputForWire(call.args),
        decisions: offered,
        ...(reason ? { reason } : {}),
        ...(prefix && offered.includes("acceptPrefixForSession") ? { prefix: formatPrefix(prefix) } : {}),
      },
      signal,
    );
    const { decision, message } = answer === undefined ? { decision: "cancel" as const, message: undefined } : interpretAnswer(answer, offered);
    this.host.record({ type: "approval", toolCallId: call.toolCallId, tool: call.toolName, decision, ...(message ? { message } : {}) });
    switch (decision) {
      case "accept":
        return undefined;
      case "acceptForSession":
        this.sessionTools.add(call.toolName);
        return undefined;
      case "acceptPrefixForSession":
        if (prefix) this.grantedPrefixes.set(shellName, [...(this.grantedPrefixes.get(shellName) ?? []), prefix]);
        return undefined;
      case "decline":
        this.declined.add(call.toolCallId);
        return { block: true, reason: message ? `${DECLINED} Their reason: ${message}` : DECLINED };
      case "cancel":
        this.declined.add(call.toolCallId);
        if (!signal?.aborted) this.host.interruptTurn();
        return { block: true, reason: CANCELLED };
    }
  };

  /**
   * The classifier gate: a call judged safe runs; one judged risky, or that
   * the classifier could not judge, runs only if the user confirms it. A no,
   * a dismissal or an interrupt blocks the call alone; the turn goes on
   * unless it was interrupted.
   */
  private async screen(call: ToolCallInfo, signal: AbortSignal | undefined): Promise<{ block: true; reason: string } | undefined> {
    const judged = await this.host.classify?.(call, signal);
    if (judged === undefined) return undefined;
    const base = { type: "classification" as const, toolCallId: call.toolCallId, tool: call.toolName, verdict: judged.verdict, reason: judged.reason };
    if (judged.verdict === "safe") {
      this.host.record(base);
      return undefined;
    }
    const { title, message } = confirmation(call, judged);
    const confirmed = signal?.aborted ? false : await this.host.confirm(title, message, signal).catch(() => false);
    this.host.record({ ...base, confirmed });
    if (confirmed && !signal?.aborted) return undefined;
    this.declined.add(call.toolCallId);
    return { block: true, reason: unconfirmedReason(judged) };
  }

  /** The call's input inline, or as a payload reference when it is large (a whole file to write). */
  private inputForWire(input: unknown): { input: unknown } | { inputRef: PayloadRef } {
    if (jsonBytes(input) <= FIELD_LIMIT) return { input };
    return { inputRef: this.host.payloads().put(JSON.stringify(input)) };
  }

  private covered(shell: string, prefix: string[]): boolean {
    return (this.grantedPrefixes.get(shell) ?? []).some((granted) => granted.length === prefix.length && granted.every((word, i) => word === prefix[i]));
  }

  /** Asks one subscriber at a time until one answers; undefined when nobody can (cancel). */
  private async ask(params: ServerRequestParams<"item/toolCall/requestApproval">, signal: AbortSignal | undefined): Promise<unknown> {
    let preferred = this.host.lastInitiator();
    const release = this.host.waitOn();
    try {
      for (;;) {
        if (signal?.aborted) return undefined;
        const target = this.pick(preferred);
        if (!target) return undefined;
        const outstanding: Outstanding = { target, attempt: new AbortController(), moved: false };
        const onTurnAbort = () => outstanding.attempt.abort();
        signal?.addEventListener("abort", onTurnAbort, { once: true });
        this.outstanding.add(outstanding);
        try {
          return await target.request("item/toolCall/requestApproval", params, { signal: outstanding.attempt.signal });
        } catch (error) {
          if (signal?.aborted) return undefined;
          if (outstanding.moved) {
            preferred = outstanding.moveTo;
            continue;
          }
          // The subscriber answered with an error: a decline, never a grant.
          if (error instanceof AppServerError) return { decision: "decline" };
          // Its connection closed under the request: ask someone else; anything stranger declines.
          if (target.state !== "closed") return { decision: "decline" };
          preferred = undefined;
        } finally {
          signal?.removeEventListener("abort", onTurnAbort);
          this.outstanding.delete(outstanding);
        }
      }
    } finally {
      release();
    }
  }

  private pick(preferred: Connection | undefined): Connection | undefined {
    const open = this.host.subscribers().filter((c) => c.state !== "closed");
    if (preferred && open.includes(preferred)) return preferred;
    return open.at(-1);
  }

  /** A subscriber left (unsubscribed or disconnected): a request it holds moves on. */
  subscriberLeft(connection: Connection): void {
    for (const outstanding of this.outstanding) {
      if (outstanding.target !== connection) continue;
      outstanding.moved = true;
      outstanding.attempt.abort();
    }
  }

  /** A client resumed the thread: the outstanding request moves to it. */
  subscriberResumed(connection: Connection): void {
    for (const outstanding of this.outstanding) {
      if (outstanding.target === connection) continue;
      outstanding.moved = true;
      outstanding.moveTo = connection;
      outstanding.attempt.abort();
    }
  }

  /** A finished turn's calls no longer need their declined marks: its items are final. */
  forgetDeclined(): void {
    this.declined.clear();
  }
}
