import type { AgentMessage } from "@mariozechner/pi-agent-core";

/**
 * What extensions said while no turn could take it: it goes before the
 * next turn's input, and a message that asked for a turn of its own makes
 * the owner start one once the thread is idle.
 */
export class ExtensionInbox {
  private messages: AgentMessage[] = [];
  private turnWanted = false;

  get wantsTurn(): boolean {
    return this.turnWanted;
  }

  push(message: AgentMessage, triggerTurn: boolean): void {
    this.messages.push(message);
    if (triggerTurn) this.turnWanted = true;
  }

  /** Everything waiting, for the turn about to start (which satisfies a wanted turn too). */
  take(): AgentMessage[] {
    this.turnWanted = false;
    const taken = this.messages;
    this.messages = [];
    return taken;
  }

  /** A turn took them but never started: they wait for the next one. */
  putBack(messages: readonly AgentMessage[]): void {
    this.messages.unshift(...messages);
  }

  /** Drops everything; answers how many messages never reached a turn. */
  clear(): number {
    const dropped = this.messages.length;
    this.messages = [];
    this.turnWanted = false;
    return dropped;
  }
}
