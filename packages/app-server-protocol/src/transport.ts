/**
 * A transport moves whole JSON-RPC messages as text, one message per call,
 * and knows nothing of methods. Both the client and the server side speak it.
 * Every registration returns the function that undoes it, so a listener
 * never keeps its owner alive longer than the owner wants.
 */
export interface MessageTransport {
  /** Queues one serialized message; never throws once the transport closed. */
  send(text: string): void;
  onMessage(listener: (text: string) => void): () => void;
  /** Called once, when the other side went away or `close` ran. */
  onClose(listener: (reason?: Error) => void): () => void;
  close(reason?: Error): void;
}

/**
 * The listeners of one event. `add` answers the disposer that removes the
 * listener again. A listener removed while an event is delivered misses it;
 * one added meanwhile may see it.
 */
export class Listeners<A extends unknown[]> {
  private readonly set = new Set<(...args: A) => void>();

  add(listener: (...args: A) => void): () => void {
    // A wrapper per registration: the same function added twice is removed one registration at a time.
    const entry = (...args: A) => listener(...args);
    this.set.add(entry);
    return () => void this.set.delete(entry);
  }

  emit(...args: A): void {
    for (const listener of this.set) listener(...args);
  }

  clear(): void {
    this.set.clear();
  }

  get size(): number {
    return this.set.size;
  }
}
