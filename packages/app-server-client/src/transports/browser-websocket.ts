import { TransportEvents } from "./events.js";
import { ClientError } from "../errors.js";
import { base64url, challengeSubprotocol, ClientProofHandshake, CLOSE_UNAUTHORIZED, tcpAddress } from "../listener-proof.js";

/**
 * The subprotocol a page may offer with its token, since a browser cannot set an
 * Authorization header on a WebSocket. Still accepted by the server; this
 * transport asks for the listener's proof instead and never sends the token.
 */
export const TOKEN_SUBPROTOCOL_PREFIX = "knightcode.bearer.";
/** The subprotocol the server answers with; the token itself is never echoed back. */
export const SUBPROTOCOL = "knightcode";

/** What this transport needs of a WebSocket: the browser's, or any with the same shape. */
export interface BrowserSocket {
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(text: string): void;
  close(code?: number): void;
}
export type BrowserSocketClass = new (url: string, protocols: string[]) => BrowserSocket;

export interface BrowserWebSocketOptions {
  /** `ws://127.0.0.1:<port>`: an address, not a name, so the proof can say which listener answered. */
  url: string;
  token: string;
  /** The WebSocket class; the global one by default. */
  WebSocket?: BrowserSocketClass;
  /** How long the listener has to prove itself once the socket is open. Default 10 s. */
  handshakeTimeoutMs?: number;
}

/** Encodes the token as base64url, which every token character survives inside a header value. */
export function tokenSubprotocol(token: string): string {
  return TOKEN_SUBPROTOCOL_PREFIX + base64url(new TextEncoder().encode(token));
}

/**
 * The address the proofs sign for a page's WebSocket URL. A page cannot see
 * which address a name reached, so only an IP address will do.
 */
export function browserAddress(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(host) && !host.includes(":")) return undefined;
  return tcpAddress(host, Number(parsed.port || (parsed.protocol === "wss:" ? 443 : 80)));
}

/**
 * A transport over a browser WebSocket. The page never sends its token: the
 * listener proves it holds the same one, then the page proves it back (see
 * `listener-proof.ts`). A refused upgrade and an unreachable server look the
 * same from inside a page (close code 1006, no status), so a failed connect
 * rejects with a `closed` ClientError and the caller decides; a listener
 * that fails its proof rejects with `untrusted`, and a refused page proof
 * with `unauthorized`.
 */
export class BrowserWebSocketTransport extends TransportEvents {
  private constructor(private readonly socket: BrowserSocket) {
    super();
    socket.onmessage = (event) => {
      if (typeof event.data === "string") this.messages.emit(event.data);
    };
    socket.onclose = (event) => this.finish(event.code === 1000 ? undefined : new Error(`socket closed (${event.code}) ${event.reason}`));
    socket.onerror = () => this.finish(new Error("socket error"));
  }

  static connect(options: BrowserWebSocketOptions): Promise<BrowserWebSocketTransport> {
    const Socket = options.WebSocket ?? (globalThis as { WebSocket?: BrowserSocketClass }).WebSocket;
    if (Socket === undefined) return Promise.reject(new ClientError("closed", "no WebSocket class in this runtime"));
    const address = browserAddress(options.url);
    if (address === undefined)
      return Promise.reject(
        new ClientError(
          "untrusted",
          `connect to an IP address such as ws://127.0.0.1:<port>, not ${options.url}: a page cannot tell which listener a name reached`,
        ),
      );
    const handshake = new ClientProofHandshake(options.token, address);
    const socket = new Socket(options.url, [SUBPROTOCOL, challengeSubprotocol(handshake.clientNonce)]);
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let steps = Promise.resolve();
      const stop = (error?: ClientError) => {
        clearTimeout(timer);
        socket.onopen = socket.onmessage = socket.onclose = null;
        if (error === undefined) return resolve(new BrowserWebSocketTransport(socket));
        socket.close(1000);
        reject(error);
      };
      socket.onopen = () => {
        const timeoutMs = options.handshakeTimeoutMs ?? 10_000;
        timer = setTimeout(
          () =>
            stop(
              new ClientError("untrusted", `the listener at ${address} did not prove within ${timeoutMs} ms that it holds this token; the token was not sent`),
            ),
          timeoutMs,
        );
      };
      socket.onmessage = (event) => {
        steps = steps
          .then(async () => {
            const step =
              typeof event.data === "string"
                ? await handshake.receive(event.data)
                : ({ kind: "refused", message: `the listener at ${address} sent a binary message instead of its proof` } as const);
            if (step.kind === "send") socket.send(step.text);
            else if (step.kind === "authorized") stop();
            else stop(new ClientError("untrusted", step.message));
          })
          .catch((error: unknown) =>
            stop(new ClientError("untrusted", `the listener's proof could not be checked: ${error instanceof Error ? error.message : String(error)}`)),
          );
      };
      socket.onclose = (event) => {
        if (event.code === CLOSE_UNAUTHORIZED) stop(new ClientError("unauthorized", "the server refused this page's proof of the token"));
        else stop(new ClientError("closed", `cannot connect to ${options.url} (${event.code})`));
      };
    });
  }
  send(text: string): void {
    if (!this.closed && this.socket.readyState === 1) this.socket.send(text);
  }

  close(): void {
    this.socket.close(1000);
  }

  protected override finish(reason?: Error): void {
    if (!this.closed) this.socket.onmessage = this.socket.onclose = this.socket.onerror = null;
    super.finish(reason);
  }
}
