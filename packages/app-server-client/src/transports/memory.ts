import type { MessageTransport } from "../transport.js";

class MemoryEnd implements MessageTransport {
  peer!: MemoryEnd;
  private readonly messageListeners: ((text: string) => void)[] = [];
  private readonly closeListeners: ((reason?: Error) => void)[] = [];
  private closed = false;

  send(text: string): void {
    if (this.closed) return;
    const peer = this.peer;
    // Deliver on a later tick, as a real pipe would: a sender never re-enters its receiver.
    queueMicrotask(() => {
      if (!peer.closed) for (const listener of peer.messageListeners) listener(text);
    });
  }

  onMessage(listener: (text: string) => void): void {
    this.messageListeners.push(listener);
  }

  onClose(listener: (reason?: Error) => void): void {
    this.closeListeners.push(listener);
  }

  close(reason?: Error): void {
    if (this.closed) return;
    this.closed = true;
    for (const listener of this.closeListeners) listener(reason);
    queueMicrotask(() => this.peer.close(reason));
  }
}

/** Two connected in-memory transports: what one sends, the other receives. */
export function createMemoryTransportPair(): [MessageTransport, MessageTransport] {
  const a = new MemoryEnd();
  const b = new MemoryEnd();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
