import { Listeners, type MessageTransport } from "@knightcode/app-server-protocol";

export type TransportFaultKind = "parseError" | "lineTooLong";

/** A line the transport could not turn into a message. */
export interface TransportFault {
  kind: TransportFaultKind;
  message: string;
}

/**
 * The server's view of a connection's transport: a MessageTransport plus
 * what shutdown needs (stop reading now, let output drain) and faults found
 * below the message level. Every registration returns its disposer.
 */
export interface ServerTransport extends MessageTransport {
  onFault(listener: (fault: TransportFault) => void): () => void;
  /** No more input will come (stdin EOF); output still works. */
  onInputEnd(listener: () => void): () => void;
  /** Stops reading input at once; messages not yet delivered are dropped. */
  stopInput(): void;
  /** Resolves once everything sent so far has been written out, or the transport closed. */
  flush(): Promise<void>;
  /** Bytes sent and not yet taken by the client: what it has left unread so far. */
  backlog(): number;
  /** The client read everything sent so far (after some had to wait). */
  onDrain(listener: () => void): () => void;
  /**
   * Queues one message given as consecutive parts of its text (a large
   * answer, see messageParts). A transport that writes a byte stream writes
   * each part as it comes, so the client reads the first while the next is
   * encoded; without this, the parts are joined and sent.
   */
  sendParts?(parts: readonly string[]): void;
  /**
   * Queues a message a client waits for (an item's first delta): it goes
   * out when the job that queued it ends, even while output streams.
   * Without this, it is sent as any.
   */
  sendSoon?(text: string): void;
  /**
   * Queues a message no one waits for at once (the next delta of a text
   * already streaming): it goes out with what its turn of the event loop
   * sends, never in a write of its own. Without this, it is sent as any.
   */
  sendLater?(text: string): void;
  /**
   * Queues a message that ends something (a turn): it, and whatever its
   * turn of the event loop sends after it, go out together at that turn's
   * end. Without this, it is sent as any.
   */
  sendTogether?(text: string): void;
}

/**
 * The events every server transport offers, each registration with its
 * disposer. A transport extends it and emits; `detachAll` drops every
 * listener once it closed, so nothing it held stays reachable through it.
 */
export abstract class TransportEvents {
  protected readonly messages = new Listeners<[string]>();
  protected readonly faults = new Listeners<[TransportFault]>();
  protected readonly inputEnd = new Listeners<[]>();
  protected readonly closes = new Listeners<[Error | undefined]>();
  protected readonly drains = new Listeners<[]>();

  onMessage(listener: (text: string) => void): () => void {
    return this.messages.add(listener);
  }

  onFault(listener: (fault: TransportFault) => void): () => void {
    return this.faults.add(listener);
  }

  onInputEnd(listener: () => void): () => void {
    return this.inputEnd.add(listener);
  }

  onClose(listener: (reason?: Error) => void): () => void {
    return this.closes.add(listener);
  }

  onDrain(listener: () => void): () => void {
    return this.drains.add(listener);
  }

  protected detachAll(): void {
    this.drains.clear();
    for (const listeners of [this.messages, this.faults, this.inputEnd, this.closes]) listeners.clear();
  }
}

export const MAX_LINE_BYTES = 64 * 1024 * 1024;
export const MAX_PENDING_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Adapts an in-memory or other plain transport: for it, closing is also the end of input. */
export function asServerTransport(transport: MessageTransport): ServerTransport {
  const inputEnd = new Listeners<[]>();
  const messages = new Listeners<[string]>();
  let stopped = false;
  transport.onMessage((text) => {
    if (!stopped) messages.emit(text);
  });
  transport.onClose(() => {
    inputEnd.emit();
    inputEnd.clear();
    messages.clear();
  });
  return {
    send: (text) => transport.send(text),
    onMessage: (listener) => messages.add(listener),
    onClose: (listener) => transport.onClose(listener),
    close: (reason) => transport.close(reason),
    onFault: () => () => undefined,
    onInputEnd: (listener) => inputEnd.add(listener),
    stopInput: () => {
      stopped = true;
    },
    flush: () => Promise.resolve(),
    // An in-memory receiver takes each message as it is sent: nothing is ever left unread.
    backlog: () => 0,
    onDrain: () => () => undefined,
  };
}
