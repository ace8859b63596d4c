import type WebSocket from "ws";
import type { IncomingMessage } from "node:http";
import { TransportEvents } from "./events.js";
import { ClientError } from "../errors.js";
import { challengeSubprotocol, ClientProofHandshake, CLOSE_UNAUTHORIZED, newNonce, tcpAddress, unixAddress } from "../listener-proof.js";

export interface WebSocketTransportOptions {
  /** `ws://127.0.0.1:<port>`, or `unix:///path/to/socket` for a server started with `--listen unix://PATH`. */
  url: string;
  /**
   * The listener's token. It is never sent: the listener first proves that it
   * holds the same token, then this client proves it back (see docs/protocol.md,
   * "The listener's proof").
   */
  token?: string;
  origin?: string;
  headers?: Record<string, string>;
  /** How long the listener has to prove itself once the socket is open. Default 10 s. */
  handshakeTimeoutMs?: number;
}

/** Where to open the socket, and the address both sides sign when it is known before connecting (a Unix socket). */
interface Target {
  socketUrl: string;
  address?: string;
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

  /**
   * Opens the socket. With a token, the listener must first prove it holds
   * it: a listener that cannot rejects with an `untrusted` ClientError, and
   * nothing was sent to it. A refused upgrade or proof rejects with an
   * `unauthorized` one (`status` carries the HTTP status of a refused upgrade).
   */
  static async connect(options: WebSocketTransportOptions): Promise<WebSocketTransport> {
    const target = options.url.startsWith("unix://") ? await unixTarget(options.url) : { socketUrl: options.url };
    const nonce = newNonce();
    // Loaded on demand: a stdio or in-memory client never pays for it.
    const { default: WebSocketClass } = await import("ws");
    const protocols = options.token === undefined ? [] : ["knightcode", challengeSubprotocol(nonce)];
    const socket = new WebSocketClass(target.socketUrl, protocols, { headers: options.headers, origin: options.origin, maxPayload: 256 * 1024 * 1024 });
    return new Promise((resolve, reject) => {
      socket.once("unexpected-response", (_request, response) => {
        const status = response.statusCode ?? 0;
        const why = status === 401 ? "wrong or missing token" : status === 403 ? "Origin not allowed" : "refused";
        reject(new ClientError("unauthorized", `upgrade refused: HTTP ${status} (${why})`, status));
        socket.terminate();
      });
      socket.once("error", reject);
      if (options.token === undefined) {
        socket.once("open", () => resolve(new WebSocketTransport(socket)));
        return;
      }
      let handshake: ClientProofHandshake | undefined;
      socket.once("upgrade", (response: IncomingMessage) => {
        const address = target.address ?? tcpAddress(response.socket.remoteAddress ?? "", response.socket.remotePort ?? 0);
        handshake = new ClientProofHandshake(options.token!, address, nonce);
      });
      socket.once("open", () => {
        proveBothWays(socket, handshake!, options.handshakeTimeoutMs ?? 10_000).then(() => resolve(new WebSocketTransport(socket)), reject);
      });
    });
  }

  send(text: string): void {
    if (!this.closed && this.socket.readyState === this.socket.OPEN) this.socket.send(text);
  }

  close(): void {
    this.socket.close(1000);
  }
}

/** Runs the proof handshake on an open socket; resolves once the server took this client's proof. */
function proveBothWays(socket: WebSocket, handshake: ClientProofHandshake, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let steps = Promise.resolve();
    const stop = (error?: Error) => {
      clearTimeout(timer);
      socket.off("message", onMessage);
      socket.off("close", onClose);
      if (error === undefined) return resolve();
      socket.terminate();
      reject(error);
    };
    const timer = setTimeout(
      () => stop(new ClientError("untrusted", `the listener did not prove within ${timeoutMs} ms that it holds this token; the token was not sent`)),
      timeoutMs,
    );
    const onClose = (code: number) => {
      if (code === CLOSE_UNAUTHORIZED) stop(new ClientError("unauthorized", "the server refused this client's proof of the token"));
      else stop(new ClientError("closed", `the listener closed the connection (${code}) before the handshake ended`));
    };
    const onMessage = (data: WebSocket.RawData, isBinary: boolean) => {
      // Messages are taken one at a time, in order: each step awaits a digest.
      steps = steps
        .then(async () => {
          const step = isBinary
            ? ({ kind: "refused", message: "the listener sent a binary message instead of its proof" } as const)
            : await handshake.receive(data.toString());
          if (step.kind === "send") socket.send(step.text);
          else if (step.kind === "authorized") stop();
          else stop(new ClientError("untrusted", step.message));
        })
        .catch((error: unknown) =>
          stop(new ClientError("untrusted", `the listener's proof could not be checked: ${error instanceof Error ? error.message : String(error)}`)),
        );
    };
    socket.on("message", onMessage);
    socket.on("close", onClose);
  });
}

/**
 * Checks a `unix://` URL before connecting: the socket's folder must be ours
 * alone and the socket must belong to us, or a listener another user put
 * there could answer. Resolves the folder's symlinks, as the server does
 * before it signs the address.
 */
async function unixTarget(url: string): Promise<Target> {
  const [{ privateFolderProblem }, { lstatSync, realpathSync }, { basename, dirname, isAbsolute, join }] = await Promise.all([
    import("../local/owned-paths.js"),
    import("node:fs"),
    import("node:path"),
  ]);
  const path = url.slice("unix://".length);
  if (!isAbsolute(path)) throw new ClientError("untrusted", `${url} does not name an absolute socket path`);
  const problem = privateFolderProblem(dirname(path));
  if (problem !== undefined) throw new ClientError("untrusted", `not connecting to ${url}: ${problem}`);
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (!stats) throw new ClientError("closed", `nothing listens at ${path}`);
  if (!stats.isSocket()) throw new ClientError("untrusted", `not connecting to ${url}: ${path} is not a socket`);
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) throw new ClientError("untrusted", `not connecting to ${url}: the socket belongs to user ${stats.uid}`);
  const real = join(realpathSync(dirname(path)), basename(path));
  return { socketUrl: `ws+unix:${real}:/`, address: unixAddress(real) };
}
