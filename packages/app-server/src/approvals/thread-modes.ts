import type { ApprovalMode, ServerNotificationMethod, ServerNotificationParams } from "@knightcode/app-server-protocol";

/** Every mode the protocol knows; the compiler checks the list is whole. */
const APPROVAL_MODES = { ask: true, autoEdit: true, fullAccess: true } satisfies Record<ApprovalMode, true>;

function isApprovalMode(value: unknown): value is ApprovalMode {
  return typeof value === "string" && Object.hasOwn(APPROVAL_MODES, value);
}

/** A stored approval mode, or `ask` when it is missing or not one we know (a gate never fails open). */
export function validApprovalMode(value: unknown, fallback: ApprovalMode = "ask"): ApprovalMode {
  return isApprovalMode(value) ? value : fallback;
}

export interface ThreadModesOptions {
  threadId: string;
  /** What the transcript's branch says, when it says anything. */
  saved: { approvalMode?: string; planMode?: boolean };
  /** A terminal host's threads run everything. */
  terminal: boolean;
  record(entry: { type: string; [field: string]: unknown }): void;
  send<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>): void;
}

/**
 * A thread's approval mode and plan mode: what the approval gate asks for
 * each call, the sandbox at each command and the tool selection at each
 * change. Each change is recorded on the branch, so a resume finds it.
 */
export class ThreadModes {
  /** Undefined until the thread's settings give the default (useDefault). */
  private approval: ApprovalMode | undefined;
  private plan: boolean;
  private readonly planListeners = new Set<(on: boolean) => void>();

  constructor(private readonly options: ThreadModesOptions) {
    this.plan = options.saved.planMode === true;
  }

  /** The thread's settings are read: a thread that saved no mode takes `mode`. */
  useDefault(mode: ApprovalMode): void {
    this.approval = validApprovalMode(this.options.saved.approvalMode ?? mode);
  }

  get approvalMode(): ApprovalMode {
    return this.approval ?? validApprovalMode(this.options.saved.approvalMode);
  }

  /** Whether the thread's commands run without the sandbox. Until the thread has loaded, only a saved fullAccess (or a terminal host) says so. */
  unsandboxed(): boolean {
    const mode = this.approval ?? (this.options.terminal ? "fullAccess" : this.options.saved.approvalMode);
    return mode === "fullAccess";
  }

  setApprovalMode(mode: ApprovalMode): void {
    this.options.record({ type: "approval_mode", mode });
    this.approval = mode;
  }

  get planMode(): boolean {
    return this.plan;
  }

  /** Called with each change of plan mode. */
  onPlanChange(listener: (on: boolean) => void): () => void {
    this.planListeners.add(listener);
    return () => this.planListeners.delete(listener);
  }

  /**
   * Plan mode on or off, at once (the gate reads it for each call) and on
   * the branch, so a resume finds it; the model's instructions follow from
   * the next turn. Subscribers hear a change.
   */
  setPlanMode(on: boolean): void {
    if (on === this.plan) return;
    this.options.record({ type: "plan_mode", on });
    this.plan = on;
    for (const listener of this.planListeners) listener(on);
    this.options.send("thread/planMode/updated", { threadId: this.options.threadId, planMode: on });
  }
}
