import { Listeners, type MessageTransport } from "@knightcode/app-server-protocol";

class MemoryEnd implements MessageTransport {
  peer!: MemoryEnd;
  private readonly messages = new Listeners<[string]>();
  private readonly closes = new Listeners<[Error | undefined]>();
  private closed = false;

  send(text: string): void {
    if (this.closed) return;
    const peer = this.peer;
    // Deliver on a later tick, as a real pipe would: a sender never re-enters its receiver.
    queueMicrotask(() => {
      if (!peer.closed) peer.messages.emit(text);
    });
  }

  onMessage(listener: (text: string) => void): () => void {
    return this.messages.add(listener);
  }

  onClose(listener: (reason?: Error) => void): () => void {
    return this.closes.add(listener);
  }

  close(reason?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.closes.emit(reason);
    this.messages.clear();
    this.closes.clear();
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
