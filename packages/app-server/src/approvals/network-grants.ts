/**
 * Which of a thread's sandboxed commands the user let reach the network:
 * one call at a time, or every command of this load. The approval gate
 * writes it; the sandbox reads it at each command.
 */
export class NetworkGrants {
  private forThread = false;
  private readonly calls = new Set<string>();

  /** The user let every sandboxed command of this load use the network. */
  get wholeThread(): boolean {
    return this.forThread;
  }

  /** Whether the call may run with the network: the user said so for it, or for the thread. */
  granted(callId: string | undefined): boolean {
    return this.forThread || (callId !== undefined && this.calls.has(callId));
  }

  grant(callId: string, wholeThread: boolean): void {
    if (wholeThread) this.forThread = true;
    this.calls.add(callId);
  }
}
