import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { textOf } from "./messages.js";

/**
 * A steer still in the input hooks, waiting to join the turn it named. Its
 * signal aborts when that turn ends or is interrupted: then it joins nothing.
 */
export interface HeldSteer {
  readonly turnId: string;
  readonly signal: AbortSignal;
  readonly cancelled: boolean;
}

type Entry =
  | { state: "held"; turnId: string; controller: AbortController; view: HeldSteer }
  /** Handed to the engine; it leaves the queue when the transcript records it (delivered) or its turn ends. */
  | { state: "accepted"; message: AgentMessage };

/**
 * Every steer of a thread, from the input hooks to the model: held while
 * its hooks run, accepted once the engine has it, and delivered (gone)
 * once the transcript records it. One entry passes through the states;
 * listeners hear each change of what is accepted, which is what a client
 * sees as the turn's pending steering.
 */
export class SteerQueue {
  private entries: Entry[] = [];
  private readonly listeners = new Set<() => void>();

  /** Called when the accepted steers change. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  hold(turnId: string): HeldSteer {
    const controller = new AbortController();
    const view: HeldSteer = {
      turnId,
      signal: controller.signal,
      get cancelled() {
        return controller.signal.aborted;
      },
    };
    this.entries.push({ state: "held", turnId, controller, view });
    return view;
  }

  /** The engine took `message`: the held steer it came from (if any) is accepted in its place. */
  accept(message: AgentMessage, from?: HeldSteer): void {
    const at = from ? this.entries.findIndex((entry) => entry.state === "held" && entry.view === from) : -1;
    const accepted: Entry = { state: "accepted", message };
    if (at === -1) this.entries.push(accepted);
    else this.entries[at] = accepted;
    this.changed();
  }

  /** A held steer's hooks are done; it leaves the queue unless it was accepted. */
  release(held: HeldSteer): void {
    this.entries = this.entries.filter((entry) => entry.state !== "held" || entry.view !== held);
  }

  /** The transcript recorded `message`; false when it was no accepted steer. Delivery is noticed by identity. */
  delivered(message: AgentMessage): boolean {
    const at = this.entries.findIndex((entry) => entry.state === "accepted" && entry.message === message);
    if (at === -1) return false;
    this.entries.splice(at, 1);
    this.changed();
    return true;
  }

  /** Cancels held steers (those `which` picks, or all): their turn ended or was interrupted. */
  cancelHeld(which: (steer: HeldSteer) => boolean = () => true): void {
    for (const entry of this.entries) if (entry.state === "held" && which(entry.view)) entry.controller.abort();
  }

  /** The turn ended: undelivered steers belong to it and never reach a later one. */
  dropAccepted(): void {
    if (!this.hasAccepted) return;
    this.entries = this.entries.filter((entry) => entry.state !== "accepted");
    this.changed();
  }

  get hasAccepted(): boolean {
    return this.entries.some((entry) => entry.state === "accepted");
  }

  /** The texts of the steers accepted and not yet delivered, in order. */
  pending(): string[] {
    return this.accepted().map(steerText);
  }

  /** What the accepted steers hold: one input each, their text and their images' base64 characters. */
  held(): { inputs: number; textBytes: number; imageBytes: number } {
    let textBytes = 0;
    let imageBytes = 0;
    const accepted = this.accepted();
    for (const message of accepted) {
      textBytes += Buffer.byteLength(steerText(message), "utf8");
      if ((message.role === "user" || message.role === "custom") && typeof message.content !== "string") {
        for (const part of message.content) if (part.type === "image") imageBytes += part.data.length;
      }
    }
    return { inputs: accepted.length, textBytes, imageBytes };
  }

  private accepted(): AgentMessage[] {
    return this.entries.flatMap((entry) => (entry.state === "accepted" ? [entry.message] : []));
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function steerText(message: AgentMessage): string {
  return message.role === "user" || message.role === "custom" ? textOf(message.content) : "";
}
