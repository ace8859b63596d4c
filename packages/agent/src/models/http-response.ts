import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import type { ReadableStreamAsyncIterator } from "node:stream/web";
import type { HeaderFields } from "./http-headers.js";

type Failure = { error: unknown };

/**
 * What both ways of reading a response body share: the message and its
 * decoded bytes, the request's abort signal, and `release`, run once,
 * whichever way the body ends. As with `fetch`, an aborted body fails with
 * the signal's reason, and one cut short (the connection lost, a coding
 * that does not decode) with `TypeError("terminated")` and the cause: the
 * words the turn's error classification takes for a network failure,
 * retried.
 */
class BodySource {
  private settled = false;

  constructor(
    readonly message: IncomingMessage,
    readonly decoded: Readable,
    private readonly signal: AbortSignal | undefined,
    private readonly release: () => void,
  ) {}

  /** Runs `release` the first time; whether this was it. */
  settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.release();
    return true;
  }

  /** Stops reading: the response, and with it the connection, is destroyed. */
  cancel(): void {
    this.settle();
    this.message.destroy();
  }

  /** Calls `fail` with what a read fails with when the body cannot end well; returns the undo. */
  watchFailure(fail: (error: unknown) => void): () => void {
    const { message, decoded, signal } = this;
    const onError = (cause: unknown) => fail(signal?.aborted ? signal.reason : new TypeError("terminated", { cause }));
    // A connection closed before the body ended is an error, whether or not Node reported one.
    const onClose = () => {
      if (!message.complete) onError(new Error("the server closed the connection before the response ended"));
    };
    decoded.on("error", onError);
    if (decoded !== message) message.on("error", onError);
    message.once("close", onClose);
    return () => {
      decoded.off("error", onError);
      message.off("error", onError);
      message.off("close", onClose);
    };
  }
}

/**
 * An async iteration of a body that takes its bytes straight from the
 * Node stream: a read returns what the socket has brought, at once, in the
 * microtask that asks for it. Through the web stream a read waits for the
 * Node stream's next `data` event, a tick that Node runs only after every
 * microtask queued before it: when a whole reply arrives in one read of
 * the socket, that is the end of the response's bookkeeping (the socket
 * handed back to the pool, its timers, the listeners let go) and the
 * turn's own work on the reply's first events, all before the first bytes
 * reach the split into events. Ending early (`return`) cancels the body,
 * as the web stream's iteration does.
 */
class DirectRead implements ReadableStreamAsyncIterator<Uint8Array> {
  private failure: Failure | undefined;
  private ended = false;
  private done = false;
  private waiters: (() => void)[] = [];
  private readonly stopListening: () => void;

  constructor(private readonly source: BodySource) {
    const { decoded } = source;
    const wake = () => {
      for (const waiter of this.waiters.splice(0)) waiter();
    };
    const onEnd = () => {
      this.ended = true;
      source.settle();
      wake();
    };
    decoded.on("readable", wake);
    decoded.once("end", onEnd);
    const stopWatching = source.watchFailure((error) => {
      if (source.settle()) this.failure = { error };
      wake();
    });
    this.stopListening = () => {
      decoded.off("readable", wake);
      decoded.off("end", onEnd);
      stopWatching();
    };
  }

  async next(): Promise<IteratorResult<Uint8Array, undefined>> {
    for (;;) {
      if (this.done) return { done: true, value: undefined };
      // As the web stream does, a failure drops what was read and not taken.
      if (this.failure !== undefined) {
        this.finish();
        throw this.failure.error;
      }
      const chunk = this.source.decoded.read() as Uint8Array | null;
      if (chunk !== null) return { done: false, value: chunk };
      if (this.ended) {
        this.finish();
        return { done: true, value: undefined };
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async return(): Promise<IteratorResult<Uint8Array, undefined>> {
    if (!this.done && !this.ended && this.failure === undefined) this.source.cancel();
    this.finish();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.stopListening();
  }
}

/**
 * A response body, as `fetch` gives it: a web stream, read from the socket
 * only as fast as it is taken (the socket is paused while a chunk waits),
 * so a slow consumer never buffers a whole reply. Whoever reads first
 * takes it. A reader (`getReader`, `pipeTo`, `tee`) reads through the web
 * stream. An async iteration (how the model SDKs and `HttpResponse` read)
 * takes the bytes from the Node stream itself (see DirectRead), and holds
 * the web stream locked meanwhile, as its own iteration would. `cancel`
 * destroys the response, and with it the connection.
 */
export class ModelBody extends ReadableStream<Uint8Array> {
  private readonly source: BodySource;

  constructor(message: IncomingMessage, decoded: Readable, signal: AbortSignal | undefined, release: () => void) {
    const source = new BodySource(message, decoded, signal, release);
    let listening = false;
    super(
      {
        pull(controller) {
          if (!listening) {
            listening = true;
            listenForWebReads(source, controller);
          }
          decoded.resume();
        },
        cancel() {
          source.cancel();
        },
      },
      // Nothing is read before a reader asks: an iteration may take the body first.
      { highWaterMark: 0 },
    );
    this.source = source;
  }

  override values(options?: { preventCancel?: boolean }): ReadableStreamAsyncIterator<Uint8Array> {
    // Locked, it fails as the web stream's does; `preventCancel` is the web stream's alone.
    if (this.locked || options?.preventCancel) return super.values(options);
    this.getReader();
    return new DirectRead(this.source);
  }

  override [Symbol.asyncIterator](): ReadableStreamAsyncIterator<Uint8Array> {
    return this.values();
  }
}

/** The web stream's reads: each chunk enqueued as it comes, the Node stream paused until the next read. */
function listenForWebReads(source: BodySource, controller: ReadableStreamDefaultController<Uint8Array>): void {
  const { decoded } = source;
  decoded.on("data", (chunk: Buffer) => {
    controller.enqueue(chunk);
    if ((controller.desiredSize ?? 1) <= 0) decoded.pause();
  });
  decoded.once("end", () => {
    if (source.settle()) controller.close();
  });
  source.watchFailure((error) => {
    if (source.settle()) controller.error(error);
  });
}

/**
 * What the model SDKs and pi-ai read of a `fetch` response: status, url,
 * headers, and the body as a web stream or read whole. One read of the body
 * at most, as with `fetch`.
 */
export class HttpResponse {
  readonly type = "basic";
  private used = false;

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: HeaderFields,
    readonly url: string,
    readonly redirected: boolean,
    readonly body: ReadableStream<Uint8Array> | null,
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    if (this.used) throw new TypeError("Body is unusable: Body has already been read");
    this.used = true;
    if (this.body === null) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.body) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  clone(): never {
    throw new TypeError("a model response cannot be cloned");
  }
}
