import type { ImageContent } from "@mariozechner/pi-ai";
import type { ReviewComment } from "@knightcode/repo/git/diff/review-comments";
import { sizeOf, type WaitingSize } from "./waiting-limits.js";

/** A queued input as clients see it: its text, and how many attachments it does not show. */
export interface QueuedView {
  id: string;
  text: string;
  attachments?: number;
}

export interface QueuedInput {
  id: string;
  text: string;
  images: ImageContent[];
  /** Review comments, already quoted. */
  comments?: ReviewComment[];
  clientMessageId?: string;
}

/** Inputs waiting for the thread to be idle, oldest first; each starts a turn of its own. */
export class InputQueue {
  private readonly inputs: QueuedInput[] = [];
  private seq = 0;
  /** Every queued text and image together. */
  private total: WaitingSize = { inputs: 0, textBytes: 0, imageBytes: 0 };

  get size(): number {
    return this.inputs.length;
  }

  /** How much the queue holds: inputs, text and images. */
  get held(): WaitingSize {
    return this.total;
  }

  add(input: Omit<QueuedInput, "id">): string {
    const id = `q${++this.seq}`;
    this.inputs.push({ id, ...input });
    this.count(input, 1);
    return id;
  }

  /**
   * An input that waited on the same thread before it reloaded elsewhere:
   * it keeps its id, and later ids never repeat it.
   */
  restore(input: QueuedInput): void {
    const n = /^q([0-9]+)$/.exec(input.id);
    if (n) this.seq = Math.max(this.seq, Number(n[1]));
    this.inputs.push({ ...input });
    this.count(input, 1);
  }

  /** Takes every input off the queue, oldest first. */
  drain(): QueuedInput[] {
    const all = this.inputs.splice(0);
    this.total = { inputs: 0, textBytes: 0, imageBytes: 0 };
    return all;
  }

  /** False when it was unknown, already started or already removed. */
  remove(id: string): boolean {
    const at = this.inputs.findIndex((q) => q.id === id);
    if (at === -1) return false;
    this.taken(this.inputs.splice(at, 1)[0]);
    return true;
  }

  shift(): QueuedInput | undefined {
    return this.taken(this.inputs.shift());
  }

  /** Drops every input; whether there were any. */
  clear(): boolean {
    const had = this.inputs.length > 0;
    this.inputs.length = 0;
    this.total = { inputs: 0, textBytes: 0, imageBytes: 0 };
    return had;
  }

  /** The queued inputs as `turn/queue/updated` shows them: the user's text, and how many attachments (images, review comments) it does not show. */
  followUp(): QueuedView[] {
    return this.inputs.map((q) => {
      const attachments = q.images.length + (q.comments?.length ?? 0);
      return { id: q.id, text: q.text, ...(attachments > 0 ? { attachments } : {}) };
    });
  }

  private taken(input: QueuedInput | undefined): QueuedInput | undefined {
    if (input) this.count(input, -1);
    return input;
  }

  private count(input: Omit<QueuedInput, "id">, sign: 1 | -1): void {
    const size = sizeOf(input.text, input.images);
    this.total = {
      inputs: this.total.inputs + sign,
      textBytes: this.total.textBytes + sign * size.textBytes,
      imageBytes: this.total.imageBytes + sign * size.imageBytes,
    };
  }
}
