import { createServer, type IncomingMessage, type Server } from "node:http";
import { timingSafeEqual, createHash } from "node:crypto";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import { listenerAuthorities, ownAuthority, servePage } from "./page.js";
import { MAX_LINE_BYTES, MAX_PENDING_OUTPUT_BYTES, TransportEvents, type ServerTransport, type TransportFault } from "./types.js";

export interface ListenOptions {
  /** `ws://127.0.0.1:<port>`; port 0 picks a free one. Only loopback hosts are accepted. */
  url: string;
  token: string;
  allowedOrigins?: readonly string[];
  onConnection(transport: ServerTransport): void;
  log?: (line: string) => void;
  /**
   * Serves the files of `root` to plain HTTP GET and HEAD, for a browser
   * page that connects back to this listener. It also makes every request
   * name the listener in its Host header and allows the page's own origin.
   */
  page?: { root: string };
}

/** The subprotocol a browser offers and the server answers; browsers cannot set an Authorization header. */
export const SUBPROTOCOL = "knightcode";
/** Prefix of the offered subprotocol that carries the token, base64url-encoded. */
export const BEARER_SUBPROTOCOL_PREFIX = "knightcode.bearer.";

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

/**
 * Whether the upgrade carries the token, in an Authorization header or as a
 * bearer subprotocol. Every candidate is compared as a digest, in constant time.
 */
function authorized(request: IncomingMessage, expected: Buffer): boolean {
  const candidates = [request.headers.authorization ?? ""];
  for (const offered of (request.headers["sec-websocket-protocol"] ?? "").split(",")) {
    const name = offered.trim();
    if (!name.startsWith(BEARER_SUBPROTOCOL_PREFIX)) continue;
    const encoded = name.slice(BEARER_SUBPROTOCOL_PREFIX.length);
    if (/^[A-Za-z0-9_-]+$/.test(encoded)) candidates.push(`Bearer ${Buffer.from(encoded, "base64url").toString("utf8")}`);
  }
  let ok = false;
  for (const candidate of candidates) ok = timingSafeEqual(digest(candidate), expected) || ok;
  return ok;
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
 * carry the bearer token (a header, or a subprotocol for browsers), and a
 * browser Origin must be one allowed by name; anything else is refused
 * before the upgrade. With `page`, the same port serves the page's files,
 * and a Host that does not name the listener is refused everywhere.
 */
export async function listenWebSocket(options: ListenOptions): Promise<Listener> {
  const { host, port } = parseListenUrl(options.url);
  const { WebSocketServer: WSS } = await import("ws");
  const wss: WebSocketServer = new WSS({
    noServer: true,
    maxPayload: MAX_LINE_BYTES,
    // Only the plain name is ever answered: echoing the bearer subprotocol would send the token back.
    handleProtocols: (offered) => (offered.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
  });
  const expected = digest(`Bearer ${options.token}`);
  const origins = new Set(options.allowedOrigins ?? []);
  const page = options.page;
  // Known once bound; nothing is served before.
  let authorities: string[] = [];
  const server: Server = createServer((request, response) => {
    if (!page) return void response.writeHead(426, { "Content-Type": "text/plain" }).end("WebSocket upgrade required");
    const authority = ownAuthority(request, authorities);
    if (authority === undefined) return void response.writeHead(421, { "Content-Type": "text/plain" }).end("Misdirected request: unknown Host");
    servePage(page.root, authority, request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500, { "Content-Type": "text/plain" });
      response.end();
    });
  });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (page && ownAuthority(request, authorities) === undefined) return refuse(socket, 421, "Misdirected request: unknown Host");
    if (!authorized(request, expected)) return refuse(socket, 401, "Unauthorized");
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
  authorities = listenerAuthorities(host, boundPort);
  // The page is loaded from the listener itself, under any of its own names.
  if (page) for (const authority of authorities) origins.add(`http://${authority}`);
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
