import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isAbsolute, resolve } from "node:path";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import { isLoopbackHost, tcpAddress, unixAddress } from "@knightcode/app-server-client";
import { Gathering } from "./gathering.js";
import { listenerAuthorities, ownAuthority, servePage } from "./page.js";
import { MAX_LINE_BYTES, MAX_PENDING_OUTPUT_BYTES, TransportEvents, type ServerTransport, type TransportFault } from "./types.js";
import { digest, proveBothWays, proveOnly, upgradeAuth } from "./upgrade-auth.js";
import { prepareSocketPath, restrictSocket } from "./unix-socket.js";

export { BEARER_SUBPROTOCOL_PREFIX, launcherProof } from "./upgrade-auth.js";
export { readyFileProblem, writeReadyFile } from "./ready-file.js";

export interface ListenOptions {
  /**
   * `ws://127.0.0.1:<port>` (port 0 picks a free one; loopback hosts only),
   * or `unix://PATH` for a Unix socket in a folder of ours alone.
   */
  url: string;
  token: string;
  allowedOrigins?: readonly string[];
  onConnection(transport: ServerTransport): void;
  log?: (line: string) => void;
  /**
   * Serves the files of `root` to plain HTTP GET and HEAD, for a browser
   * page that connects back to this listener. It also makes every request
   * name the listener in its Host header and allows the page's own origin.
   * A challenge from a `file://` page (Origin `null`) gets this listener's
   * proof and nothing more, and `onLaunch` hears its nonce: that is how the
   * desktop's launcher checks who listens before it hands over the token.
   */
  page?: { root: string; onLaunch?: (clientNonce: string) => void };
}

/** The subprotocol a browser offers and the server answers; browsers cannot set an Authorization header. */
export const SUBPROTOCOL = "knightcode";

export interface Listener {
  url: string;
  /** The bound TCP port; 0 for a Unix socket. */
  port: number;
  /** Refuses new connections; open ones stay until closed. */
  stop(): Promise<void>;
}

export type ListenAddress = { kind: "tcp"; host: string; port: number } | { kind: "unix"; path: string };

/**
 * Parses a `--listen` value; throws a message fit for the command line when
 * it is neither a loopback ws:// URL nor a unix:// path. A relative unix://
 * path is taken from the working folder.
 */
export function parseListenUrl(value: string): ListenAddress {
  if (value.startsWith("unix://")) {
    const given = value.slice("unix://".length);
    if (given === "") throw new Error("--listen unix:// needs a socket path, such as unix:///run/user/1000/knightcode/app.sock");
    // The client names the socket as ws+unix:PATH:/, so a colon in PATH would be read as the end of it.
    if (given.includes(":")) throw new Error(`--listen: a socket path may not contain ":", as ${JSON.stringify(given)} does`);
    return { kind: "unix", path: isAbsolute(given) ? given : resolve(given) };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--listen needs a URL such as ws://127.0.0.1:0 or unix:///path/to/socket, not ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "ws:") throw new Error(`--listen takes a ws:// or unix:// URL, not ${url.protocol}//`);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!isLoopbackHost(host)) throw new Error(`--listen accepts loopback addresses only (127.0.0.1, ::1, localhost), not ${host}`);
  if (url.pathname !== "/" || url.search !== "" || url.username !== "" || url.password !== "") {
    throw new Error("--listen takes only a host and a port");
  }
  const port = url.port === "" ? 0 : Number(url.port);
  return { kind: "tcp", host: host === "localhost" ? "127.0.0.1" : host, port };
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
}

class WebSocketServerTransport extends TransportEvents implements ServerTransport {
  private inputStopped = false;
  private closed = false;
  /** Messages sent and not yet written out to the socket. */
  private unwritten = 0;
  /** When the socket is held corked, and when it lets what it holds go (see Gathering). */
  private readonly gathering = new Gathering({
    opened: () => this.raw.cork(),
    held: () => this.raw.cork(),
    flushed: () => {
      this.raw.uncork();
      this.raw.cork();
    },
    closed: () => this.raw.uncork(),
  });

  /**
   * `raw` is the connection's TCP or Unix socket under the WebSocket: held
   * corked, it gathers frames into few writes, as the stdio transport
   * gathers its lines. Each frame would otherwise be a system call of its
   * own, and fifty threads streaming at once spent a third of the server's
   * time in them.
   */
  constructor(
    private readonly socket: WebSocket,
    private readonly raw: Duplex,
  ) {
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
    this.queue(text);
    this.gathering.added();
    this.checkBacklog();
  }

  sendSoon(text: string): void {
    if (this.closed) return;
    this.queue(text);
    this.gathering.addSoon();
    this.checkBacklog();
  }

  sendLater(text: string): void {
    if (this.closed) return;
    this.gathering.addLater();
    this.queue(text);
    this.checkBacklog();
  }

  sendTogether(text: string): void {
    if (this.closed) return;
    this.gathering.addTogether();
    this.queue(text);
    this.checkBacklog();
  }

  private queue(text: string): void {
    this.unwritten++;
    this.socket.send(text, () => {
      if (--this.unwritten === 0) this.drains.emit();
    });
  }

  private checkBacklog(): void {
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
 * Checks a `--listen` value before anything starts: its form, and for a Unix
 * socket its folder (created when missing) and whatever is at the path.
 */
export async function checkListenUrl(value: string): Promise<void> {
  const address = parseListenUrl(value);
  if (address.kind === "unix") await prepareSocketPath(address.path);
}

/** What an upgrade needs to be judged: the token's digest, the allowed origins, the page if any, and the address to sign. */
interface UpgradeContext {
  options: ListenOptions;
  wss: WebSocketServer;
  expected: Buffer;
  origins: Set<string>;
  /** The listener's own Host names (page only); empty until bound. */
  authorities: () => readonly string[];
  /** The address a client reached, as the proofs sign it. */
  addressOf: (request: IncomingMessage) => string;
}

/**
 * Judges one upgrade. Host (page only), token or challenge, then Origin are
 * checked before the upgrade; a challenged connection joins the server only
 * once its proof is taken. A challenge from a `file://` page of a page
 * listener gets the proof alone.
 */
function acceptUpgrade(context: UpgradeContext, request: IncomingMessage, socket: Duplex, head: Buffer): void {
  const { options, wss, origins } = context;
  const page = options.page;
  if (page && ownAuthority(request, context.authorities()) === undefined) return refuse(socket, 421, "Misdirected request: unknown Host");
  const auth = upgradeAuth(request, context.expected);
  if (auth.kind === "none") return refuse(socket, 401, "Unauthorized");
  const origin = request.headers.origin;
  const launcher = page !== undefined && origin === "null" && auth.kind === "challenge";
  if (origin !== undefined && !origins.has(origin) && !launcher) return refuse(socket, 403, "Forbidden origin");
  wss.handleUpgrade(request, socket, head, (ws) => {
    if (auth.kind === "bearer") return options.onConnection(new WebSocketServerTransport(ws, socket));
    const proof = { token: options.token, address: context.addressOf(request), clientNonce: auth.clientNonce };
    if (!launcher) return proveBothWays(ws, proof, () => options.onConnection(new WebSocketServerTransport(ws, socket)));
    proveOnly(ws, proof);
    page.onLaunch?.(auth.clientNonce);
  });
}

/** A plain HTTP request: the page's files when there is a page, else a request to upgrade. */
function answerHttp(pageRoot: string | undefined, authorities: readonly string[], request: IncomingMessage, response: ServerResponse): void {
  if (pageRoot === undefined) return void response.writeHead(426, { "Content-Type": "text/plain" }).end("WebSocket upgrade required");
  const authority = ownAuthority(request, authorities);
  if (authority === undefined) return void response.writeHead(421, { "Content-Type": "text/plain" }).end("Misdirected request: unknown Host");
  servePage(pageRoot, authority, request, response, authorities).catch(() => {
    if (!response.headersSent) response.writeHead(500, { "Content-Type": "text/plain" });
    response.end();
  });
}

/**
 * Accepts further connections on a loopback WebSocket or a Unix socket.
 * Every upgrade must carry the bearer token (a header, or a subprotocol for
 * browsers) or ask for this listener's proof and then prove the token back;
 * a browser Origin must be one allowed by name; anything else is refused
 * before the upgrade. With `page`, the same port serves the page's files,
 * and a Host that does not name the listener is refused everywhere.
 */
export async function listenWebSocket(options: ListenOptions): Promise<Listener> {
  const address = parseListenUrl(options.url);
  if (address.kind === "unix" && options.page) throw new Error("a page is served over TCP only");
  const tcp = address.kind === "tcp" ? address : undefined;
  const socketPath = address.kind === "unix" ? await prepareSocketPath(address.path) : undefined;
  const { WebSocketServer: WSS } = await import("ws");
  const wss: WebSocketServer = new WSS({
    noServer: true,
    maxPayload: MAX_LINE_BYTES,
    // Only the plain name is ever answered: echoing the bearer subprotocol would send the token back.
    handleProtocols: (offered) => (offered.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
  });
  const origins = new Set(options.allowedOrigins ?? []);
  const page = options.page;
  // Known once bound; nothing is served before.
  let authorities: string[] = [];
  const server: Server = createServer((request, response) => answerHttp(page?.root, authorities, request, response));
  const context: UpgradeContext = {
    options,
    wss,
    expected: digest(`Bearer ${options.token}`),
    origins,
    authorities: () => authorities,
    addressOf: (request) => (socketPath !== undefined ? unixAddress(socketPath) : tcpAddress(request.socket.localAddress ?? "", request.socket.localPort ?? 0)),
  };
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => acceptUpgrade(context, request, socket, head));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if (tcp) server.listen(tcp.port, tcp.host, () => resolve());
    else server.listen(socketPath, () => resolve());
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      wss.close();
    });
  if (!tcp) {
    restrictSocket(socketPath!);
    return { url: `unix://${socketPath}`, port: 0, stop };
  }
  const bound = server.address();
  const boundPort = typeof bound === "object" && bound ? bound.port : 0;
  authorities = listenerAuthorities(tcp.host, boundPort);
  // The page is loaded from the listener itself, under any of its own names.
  if (page) for (const authority of authorities) origins.add(`http://${authority}`);
  return { url: `ws://${tcpAddress(tcp.host, boundPort)}`, port: boundPort, stop };
}
