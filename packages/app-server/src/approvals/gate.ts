import { analyzeShellCommand, formatPrefix, type ShellKind, type ShellPrefixAnalysis } from "@knightcode/agent/approvals/shell-prefix";
import type { CallClassification } from "@knightcode/agent/approvals/classifier";
import type { ShellFolder } from "@knightcode/agent/approvals/shell-paths";
import type { ToolCallInfo } from "@knightcode/agent/run/session-options";
import type { ApprovalMode, PayloadRef } from "@knightcode/app-server-protocol";
import { FIELD_LIMIT, jsonBytes } from "../payloads/refs.js";
import type { PayloadSink } from "../payloads/store.js";
import { type Asker, unattendedMessage } from "../asking/asker.js";
import { confirmation, unconfirmedReason } from "./classifier-gate.js";
import type { ControlLookups } from "./control-paths.js";
import { grantFolder } from "./grant-folder.js";
import type { NetworkGrants } from "./network-grants.js";
import { classifyTool, interpretAnswer, offeredDecisions, verdict, type Decision, type ToolClass } from "./policy.js";

export interface GateHost {
  readonly threadId: string;
  readonly cwd: string;
  approvalMode(): ApprovalMode;
  /** Plan mode: only read-only tools (and submit_plan) run, whatever the approval mode. */
  planMode(): boolean;
  /** Whether the active tool of this name is ours rather than an extension's. */
  isBuiltinTool(name: string): boolean;
  /** The agent folder and the code the settings load: writes there always ask. */
  readonly controls: ControlLookups;
  /** The server's own secret files (the `--listen-token-file`): no shell prefix grant covers a command naming one. */
  readonly secretFiles?: readonly string[];
  turnId(): string | undefined;
  /** Who is asked, and how the request moves and is withdrawn: the thread's, shared with its dialogs. */
  readonly asker: Asker;
  record(entry: GateRecord): void;
  /**
   * The classifier gate's verdict on a call the approval gate would let run
   * without asking; undefined while the classifier gate is off.
   */
  classify?(call: ToolCallInfo, signal: AbortSignal | undefined): Promise<CallClassification | undefined>;
  /** Asks the user a yes-or-no question (a `ui/dialog` confirm); false for no, a dismissal or nobody to ask. */
  confirm(title: string, message: string, signal: AbortSignal | undefined, onUnattended?: () => void): Promise<boolean>;
  /** Where an input too large for the request line goes. */
  payloads(): PayloadSink;
  /** cancel stops the whole turn, as Escape does. */
  interruptTurn(): void;
  /** Where the user's network grants go; the sandbox reads them. */
  readonly network: NetworkGrants;
  /**
   * Whether the thread's commands run in the sandbox with the network off
   * (by the settings): a shell call that asks for the network must then ask
   * the user, whatever its mode or grants.
   */
  sandboxNetworkOff?(): Promise<boolean>;
}

/**
 * The request's reason: the verdict's, or why a shell command that names a
 * path is offered no prefix (it may look as ordinary as one that is).
 */
function requestReason(verdictReason: string | undefined, analysis: ShellPrefixAnalysis | undefined): { reason?: string } {
  const named = analysis?.prefix === undefined && analysis?.namesPath ? `no command prefix is offered: ${analysis.reason}` : undefined;
  const reason = verdictReason ?? named;
  return reason ? { reason } : {};
}

/** What the gate writes to the transcript: the user's answer to an approval, or the classifier's verdict and the user's answer to it. */
export type GateRecord =
  | { type: "approval"; toolCallId: string; tool: string; decision: Decision; message?: string; unattended?: boolean }
  | {
      type: "classification";
      toolCallId: string;
      tool: string;
      verdict: CallClassification["verdict"];
      reason: string;
      confirmed?: boolean;
      unattended?: boolean;
    };

const DECLINED = "The user declined this tool call.";
const PLAN_MODE =
  "Plan mode is on: nothing may change until the user approves a plan, so only read-only tools (read, grep, find, ls) and ask_user run. " +
  "Submit your plan with submit_plan; once it is approved, plan mode ends and you can carry it out.";
const CANCELLED = "The user cancelled this tool call; the turn stops.";
const UNATTENDED = unattendedMessage("this approval");

/** The user's answer, or the cancel of a request held until nobody came (unattended). */
interface Answer {
  decision: Decision;
  message?: string | undefined;
  unattended?: boolean;
}

/**
 * A thread's approval gate. Every grant means exactly what the user saw:
 * session grants last for this load only, a shell grant covers only
 * commands that independently yield the granted prefix, and anything but an
 * offered decision is a decline. The thread's asker puts the question to
 * one subscriber at a time and moves it; nobody left to ask is a cancel.
 *
 * A call the gate would let run without asking (by the mode, a session grant
 * or a prefix grant) goes to the classifier gate, when one is configured,
 * unless it is a read-only tool: the user is asked at most once about a call.
 */
export class ApprovalGate {
  private readonly sessionTools = new Set<string>();
  private readonly grantedPrefixes = new Map<string, string[][]>();
  /** Calls the user declined or cancelled, for their items' status. */
  readonly declined = new Set<string>();
  /** Where a shell prefix grant holds: a command naming a path outside it, or a protected one, is asked again. */
  private readonly folder: ShellFolder;

  constructor(private readonly host: GateHost) {
    this.folder = grantFolder({ cwd: host.cwd, controls: host.controls, ...(host.secretFiles ? { secretFiles: host.secretFiles } : {}) });
  }

  check = async (call: ToolCallInfo, signal: AbortSignal | undefined): Promise<{ block: true; reason: string } | undefined> => {
    const builtin = this.host.isBuiltinTool(call.toolName);
    const kind = classifyTool(call.toolName, builtin);
    // Plan mode comes before the approval mode: no answer of the user's and no grant lets a change through it.
    if (this.host.planMode() && kind !== "readOnly") return { block: true, reason: PLAN_MODE };
    const { allow, reason } = verdict({
      mode: this.host.approvalMode(),
      kind,
      input: call.args,
      workspace: this.host.cwd,
      controls: this.host.controls,
    });
    const network = await this.asksForNetwork(call, kind, builtin);
    if (allow && !network) return kind === "readOnly" ? undefined : this.screen(call, signal);
    if (network) return this.askForNetwork(call, reason, signal);
    const shellName = call.toolName === "powershell" ? "powershell" : "bash";
    // Only our own shell tools run a command the way the prefix analysis reads it.
    const analysis = kind === "shell" && builtin ? this.analyze(call, shellName) : undefined;
    const prefix = analysis?.prefix;
    if (!reason) {
      if (kind === "shell" && prefix && this.covered(shellName, prefix)) return this.screen(call, signal);
      if (kind !== "shell" && this.sessionTools.has(call.toolName)) return this.screen(call, signal);
    }
    // A write with a reason (outside the workspace, into a control place) is approved one at a time: no session grant stretches to it.
    const offered = offeredDecisions(kind, reason ? undefined : prefix).filter((d) => !(reason && d === "acceptForSession"));
    const shown = prefix && offered.includes("acceptPrefixForSession") ? formatPrefix(prefix) : undefined;
    const answer = await this.askUser(call, offered, requestReason(reason, analysis).reason, shown, signal);
    switch (answer.decision) {
      case "accept":
        return undefined;
      case "acceptForSession":
        this.sessionTools.add(call.toolName);
        return undefined;
      case "acceptPrefixForSession":
        if (prefix) this.grantedPrefixes.set(shellName, [...(this.grantedPrefixes.get(shellName) ?? []), prefix]);
        return undefined;
      default:
        return this.refusal(call, answer, signal);
    }
  };

  /** Asks one subscriber about the call; nobody left to ask cancels, an error answer declines and never grants. The answer is recorded. */
  private async askUser(
    call: ToolCallInfo,
    offered: Decision[],
    reason: string | undefined,
    prefix: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Answer> {
    const outcome = await this.host.asker.ask(
      "item/toolCall/requestApproval",
      {
        threadId: this.host.threadId,
        turnId: this.host.turnId() ?? "",
        itemId: call.toolCallId,
        tool: call.toolName,
        ...this.inputForWire(call.args),
        decisions: offered,
        ...(reason ? { reason } : {}),
        ...(prefix ? { prefix } : {}),
      },
      { kind: "approval", signal },
    );
    if (outcome.kind === "unattended") {
      this.host.record({ type: "approval", toolCallId: call.toolCallId, tool: call.toolName, decision: "cancel", unattended: true });
      return { decision: "cancel", unattended: true };
    }
    const { decision, message } =
      outcome.kind === "unanswered"
        ? { decision: "cancel" as const, message: undefined }
        : interpretAnswer(outcome.kind === "answered" ? outcome.result : undefined, offered);
    this.host.record({ type: "approval", toolCallId: call.toolCallId, tool: call.toolName, decision, ...(message ? { message } : {}) });
    return { decision, message };
  }

  /**
   * A decline tells the agent why; a cancel also stops the turn. Anything
   * else that is no grant is a decline. An unattended cancel stops the turn
   * too, but nobody declined: its call reads as failed, saying why.
   */
  private refusal(call: ToolCallInfo, answer: Answer, signal: AbortSignal | undefined): { block: true; reason: string } {
    const { decision, message } = answer;
    if (!answer.unattended) this.declined.add(call.toolCallId);
    if (decision !== "cancel") return { block: true, reason: message ? `${DECLINED} Their reason: ${message}` : DECLINED };
    if (!signal?.aborted) this.host.interruptTurn();
    return { block: true, reason: answer.unattended ? UNATTENDED : CANCELLED };
  }

  /** A shell call of ours that asks for the network where sandboxed commands have none, and no grant of the thread's covers it. */
  private async asksForNetwork(call: ToolCallInfo, kind: ToolClass, builtin: boolean): Promise<boolean> {
    if (kind !== "shell" || !builtin || this.host.network.wholeThread) return false;
    if ((call.args as { network?: unknown } | null)?.network !== true) return false;
    return (await this.host.sandboxNetworkOff?.()) === true;
  }

  /**
   * A command that asks for the network is asked about on its own terms:
   * no prefix or session grant of the command covers the network, and
   * accepting it lets this one call (or, with acceptNetworkForSession,
   * every sandboxed command of this load) reach the network.
   */
  private async askForNetwork(
    call: ToolCallInfo,
    reason: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<{ block: true; reason: string } | undefined> {
    const offered: Decision[] = ["accept", "acceptNetworkForSession", "decline", "cancel"];
    const why = `asks for network access: the command runs in the sandbox with the network on${reason ? `; it also ${reason}` : ""}`;
    const answer = await this.askUser(call, offered, why, undefined, signal);
    if (answer.decision === "accept" || answer.decision === "acceptNetworkForSession") {
      this.host.network.grant(call.toolCallId, answer.decision === "acceptNetworkForSession");
      return undefined;
    }
    return this.refusal(call, answer, signal);
  }

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
    let unattended = false;
    const confirmed = signal?.aborted ? false : await this.host.confirm(title, message, signal, () => (unattended = true)).catch(() => false);
    if (unattended) {
      // Nobody declined: the call fails as an unattended approval does, and the turn stops.
      this.host.record({ ...base, confirmed: false, unattended: true });
      if (!signal?.aborted) this.host.interruptTurn();
      return { block: true, reason: UNATTENDED };
    }
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

  /** The prefix a shell call's command yields in the thread's folder, or why it yields none. */
  private analyze(call: ToolCallInfo, shell: ShellKind): ShellPrefixAnalysis | undefined {
    const command = (call.args as { command?: unknown } | null)?.command;
    return typeof command === "string" ? analyzeShellCommand(command, shell, this.folder) : undefined;
  }

  private covered(shell: string, prefix: string[]): boolean {
    return (this.grantedPrefixes.get(shell) ?? []).some((granted) => granted.length === prefix.length && granted.every((word, i) => word === prefix[i]));
  }

  /** A finished turn's calls no longer need their declined marks: its items are final. */
  forgetDeclined(): void {
    this.declined.clear();
  }
}
