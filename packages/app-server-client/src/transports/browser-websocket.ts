import { TransportEvents } from "./events.js";
import { ClientError } from "../errors.js";

/** The subprotocol a page offers with its token, since a browser cannot set an Authorization header on a WebSocket. */
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
  /** `ws://127.0.0.1:<port>`, usually the host the page was loaded from. */
  url: string;
  token: string;
  /** The WebSocket class; the global one by default. */
  WebSocket?: BrowserSocketClass;
}

/** Encodes the token as base64url, which every token character survives inside a header value. */
export function tokenSubprotocol(token: string): string {
  const bytes = new TextEncoder().encode(token);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return TOKEN_SUBPROTOCOL_PREFIX + btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * A transport over a browser WebSocket. A refused upgrade and an unreachable
 * server look the same from inside a page (close code 1006, no status), so a
 * failed connect rejects with a `closed` ClientError and the caller decides.
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
    const socket = new Socket(options.url, [SUBPROTOCOL, tokenSubprotocol(options.token)]);
    return new Promise((resolve, reject) => {
      socket.onopen = () => resolve(new BrowserWebSocketTransport(socket));
      socket.onclose = (event) => reject(new ClientError("closed", `cannot connect to ${options.url} (${event.code})`));
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
