import type WebSocket from "ws";
import { TransportEvents } from "./events.js";
import { ClientError } from "../errors.js";

export interface WebSocketTransportOptions {
  url: string;
  token?: string;
  origin?: string;
  headers?: Record<string, string>;
}

/** A transport over one WebSocket: one JSON-RPC message per text message. */
export class WebSocketTransport extends TransportEvents {

  private constructor(private readonly socket: WebSocket) {
    super();
    socket.on("message", (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString();
      this.messages.emit(text);
    });
    socket.on("close", (code, reason) => this.finish(code === 1000 ? undefined : new Error(`socket closed (${code}) ${reason.toString()}`)));
    socket.on("error", (error) => this.finish(error));
  }

  /** Opens the socket; rejects with an `unauthorized` ClientError carrying the HTTP status when the server refuses the upgrade. */
  static async connect(options: WebSocketTransportOptions): Promise<WebSocketTransport> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    // Loaded on demand: a stdio or in-memory client never pays for it.
    const { default: WebSocketClass } = await import("ws");
    const socket = new WebSocketClass(options.url, { headers, origin: options.origin, maxPayload: 256 * 1024 * 1024 });
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(new WebSocketTransport(socket)));
      socket.once("unexpected-response", (_request, response) => {
        const status = response.statusCode ?? 0;
        const why = status === 401 ? "wrong or missing token" : status === 403 ? "Origin not allowed" : "refused";
        reject(new ClientError("unauthorized", `upgrade refused: HTTP ${status} (${why})`, status));
        socket.terminate();
      });
      socket.once("error", reject);
    });
  }

  send(text: string): void {
    if (!this.closed && this.socket.readyState === this.socket.OPEN) this.socket.send(text);
  }

  close(): void {
    this.socket.close(1000);
  }
}
