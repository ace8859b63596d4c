import { createServer, type IncomingMessage, type Server } from "node:http";
import { timingSafeEqual, createHash } from "node:crypto";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import { MAX_LINE_BYTES, MAX_PENDING_OUTPUT_BYTES, TransportEvents, type ServerTransport, type TransportFault } from "./types.js";

export interface ListenOptions {
  /** `ws://127.0.0.1:<port>`; port 0 picks a free one. Only loopback hosts are accepted. */
  url: string;
  token: string;
  allowedOrigins?: readonly string[];
  onConnection(transport: ServerTransport): void;
  log?: (line: string) => void;
}

export interface Listener {
  url: string;
  port: number;
  /** Refuses new connections; open ones stay until closed. */
  stop(): Promise<void>;
}

/** Parses a `--listen` value; throws a message fit for the command line when it is not a loopback ws:// URL. */
export function parseListenUrl(value: string): { host: string; port: number } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--listen needs a URL such as ws://127.0.0.1:0, not ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "ws:") throw new Error(`--listen takes a ws:// URL, not ${url.protocol}//`);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const loopback = host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  if (!loopback) throw new Error(`--listen accepts loopback addresses only (127.0.0.1, ::1, localhost), not ${host}`);
  if (url.pathname !== "/" || url.search !== "" || url.username !== "" || url.password !== "") {
    throw new Error("--listen takes only a host and a port");
  }
  const port = url.port === "" ? 0 : Number(url.port);
  return { host: host === "localhost" ? "127.0.0.1" : host, port };
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
}

class WebSocketServerTransport extends TransportEvents implements ServerTransport {
  private inputStopped = false;
  private closed = false;
  /** Messages sent and not yet written out to the socket. */
  private unwritten = 0;

  constructor(private readonly socket: WebSocket) {
    super();
    socket.on("message", (data, isBinary) => {
      if (this.inputStopped) return;
      if (isBinary) {
        this.fault({ kind: "parseError", message: "binary WebSocket messages are not accepted; send text" });
        return;
      }
      const text = data.toString();
      if (text.trim() === "") return;
      this.messages.emit(text);
    });
    socket.on("close", () => this.finish());
    socket.on("error", (error) => this.finish(error));
  }

  send(text: string): void {
    if (this.closed) return;
    this.unwritten++;
    this.socket.send(text, () => {
      if (--this.unwritten === 0) this.drains.emit();
    });
    if (this.socket.bufferedAmount > MAX_PENDING_OUTPUT_BYTES) {
      this.socket.terminate();
      this.finish(new Error(`more than ${MAX_PENDING_OUTPUT_BYTES} bytes of output left unread`));
    }
  }

  stopInput(): void {
    this.inputStopped = true;
  }

  backlog(): number {
    return this.socket.bufferedAmount;
  }

  flush(): Promise<void> {
    if (this.closed || this.socket.bufferedAmount === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setInterval(() => {
        if (this.closed || this.socket.bufferedAmount === 0) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
    });
  }

  close(): void {
    if (this.closed) return;
    this.socket.close(1001, "server closing");
    this.finish();
  }

  private fault(fault: TransportFault): void {
    this.faults.emit(fault);
  }

  private finish(reason?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.inputEnd.emit();
    this.closes.emit(reason);
    this.detachAll();
  }
}

/**
 * Accepts further connections on a loopback WebSocket. Every upgrade must
 * carry the bearer token, and a browser Origin must be one allowed by name;
 * anything else is refused before the upgrade.
 */
export async function listenWebSocket(options: ListenOptions): Promise<Listener> {
  const { host, port } = parseListenUrl(options.url);
  const { WebSocketServer: WSS } = await import("ws");
  const wss: WebSocketServer = new WSS({ noServer: true, maxPayload: MAX_LINE_BYTES });
  const expected = digest(`Bearer ${options.token}`);
  const origins = new Set(options.allowedOrigins ?? []);
  const server: Server = createServer((_request, response) => {
    response.writeHead(426, { "Content-Type": "text/plain" }).end("WebSocket upgrade required");
  });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const auth = request.headers.authorization ?? "";
    if (!timingSafeEqual(digest(auth), expected)) return refuse(socket, 401, "Unauthorized");
    const origin = request.headers.origin;
    if (origin !== undefined && !origins.has(origin)) return refuse(socket, 403, "Forbidden origin");
    wss.handleUpgrade(request, socket, head, (ws) => options.onConnection(new WebSocketServerTransport(ws)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const boundPort = typeof address === "object" && address ? address.port : port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `ws://${shownHost}:${boundPort}`,
    port: boundPort,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        wss.close();
      }),
  };
}
