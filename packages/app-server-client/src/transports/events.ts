import { Listeners, type MessageTransport } from "@knightcode/app-server-protocol";

/**
 * What every client transport keeps the same way: its listeners, and a close
 * that is reported once and then lets go of them, so nothing they hold stays
 * reachable through a closed transport.
 */
export abstract class TransportEvents implements MessageTransport {
  protected readonly messages = new Listeners<[string]>();
  private readonly closes = new Listeners<[Error | undefined]>();
  protected closed = false;

  abstract send(text: string): void;
  abstract close(): void;

  onMessage(listener: (text: string) => void): () => void {
    return this.messages.add(listener);
  }

  onClose(listener: (reason?: Error) => void): () => void {
    return this.closes.add(listener);
  }

  protected finish(reason?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.closes.emit(reason);
    this.messages.clear();
    this.closes.clear();
  }
}
