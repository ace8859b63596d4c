import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import type { HeaderFields } from "./http-headers.js";

/**
 * The bytes of a response body as a web stream, read from the socket only
 * as fast as the stream's reader takes them (the socket is paused while a
 * chunk waits), so a slow consumer never buffers a whole reply. `cancel`
 * destroys the response, and with it the connection; `release` runs once,
 * whichever way the body ends. As with `fetch`, an aborted body errors
 * with the signal's reason, and one cut short (the connection lost, a
 * coding that does not decode) with `TypeError("terminated")` and the
 * cause: the words the turn's error classification takes for a network
 * failure, retried.
 */
export function bodyStream(message: IncomingMessage, decoded: Readable, signal: AbortSignal | undefined, release: () => void): ReadableStream<Uint8Array> {
  let settled = false;
  const settle = () => {
    if (settled) return false;
    settled = true;
    release();
    return true;
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        decoded.on("data", (chunk: Buffer) => {
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 1) <= 0) decoded.pause();
        });
        decoded.once("end", () => {
          if (settle()) controller.close();
        });
        const fail = (cause: unknown) => {
          if (settle()) controller.error(signal?.aborted ? signal.reason : new TypeError("terminated", { cause }));
        };
        decoded.on("error", fail);
        if (decoded !== message) message.on("error", fail);
        // A connection closed before the body ended is an error, whether or not Node reported one.
        message.once("close", () => {
          if (!message.complete) fail(new Error("the server closed the connection before the response ended"));
        });
        decoded.pause();
      },
      pull() {
        decoded.resume();
      },
      cancel() {
        settle();
        message.destroy();
      },
    },
    { highWaterMark: 1 },
  );
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
