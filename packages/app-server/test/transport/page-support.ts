import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { listenWebSocket, type Listener, type ListenOptions } from "../../src/transport/websocket.js";
import type { ServerTransport } from "../../src/transport/types.js";

export const TOKEN = "page-test-token-0123456789abcdef0123456789";
/** Written beside the page root: no request may ever read it. */
export const SECRET = "the secret beside the page root";

export interface PageFixture {
  /** Holds `page/` (the root) and `secret.txt` beside it. */
  dir: string;
  root: string;
  remove(): void;
}

/** A page root with one file of each served type, a hidden file, and symlinks inside and out of it. */
export function makePageRoot(): PageFixture {
  const dir = mkdtempSync(join(tmpdir(), "kc-page-"));
  const root = join(dir, "page");
  mkdirSync(join(root, "fonts"), { recursive: true });
  mkdirSync(join(dir, "outside"));
  writeFileSync(join(dir, "secret.txt"), SECRET);
  writeFileSync(join(dir, "outside", "secret.txt"), SECRET);
  writeFileSync(join(root, "index.html"), "<!doctype html><title>page</title><script src=app.js></script>");
  writeFileSync(join(root, "app.js"), "console.log('page');\n");
  writeFileSync(join(root, "app.js.map"), "{}");
  writeFileSync(join(root, "app.css"), "body{}");
  writeFileSync(join(root, "data.json"), "{}");
  writeFileSync(join(root, "icon.svg"), "<svg/>");
  writeFileSync(join(root, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  writeFileSync(join(root, "fonts", "mono.woff2"), Buffer.from("wOF2"));
  writeFileSync(join(root, ".env"), SECRET);
  writeFileSync(join(root, "fonts", ".hidden"), SECRET);
  symlinkSync(join(dir, "secret.txt"), join(root, "escape.txt"));
  symlinkSync(join(dir, "outside"), join(root, "escape-dir"));
  symlinkSync(join(root, "app.js"), join(root, "alias.js"));
  return { dir, root, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface RunningListener {
  listener: Listener;
  port: number;
  /** The transports of accepted connections. */
  accepted: ServerTransport[];
  stop(): Promise<void>;
}

export async function listen(options: Partial<ListenOptions> = {}): Promise<RunningListener> {
  const accepted: ServerTransport[] = [];
  const listener = await listenWebSocket({
    url: "ws://127.0.0.1:0",
    token: TOKEN,
    onConnection: (transport) => accepted.push(transport),
    ...options,
  });
  return {
    listener,
    port: listener.port,
    accepted,
    stop: async () => {
      for (const transport of accepted) transport.close();
      await listener.stop();
    },
  };
}

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with the path sent exactly as given (no normalization) and any Host header. */
export function get(port: number, path: string, options: { method?: string; host?: string } = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: "127.0.0.1", port, path, method: options.method ?? "GET", headers: { host: options.host ?? `127.0.0.1:${port}` }, agent: false },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    request.on("error", reject);
    request.end();
  });
}

export function bearerProtocol(token: string): string {
  return `knightcode.bearer.${Buffer.from(token).toString("base64url")}`;
}

export type UpgradeOutcome = { opened: true; protocol: string; answeredProtocol: string | undefined } | { opened: false; status: number };

/** Opens a WebSocket the way a browser does (subprotocols, Origin) or with headers, and closes it again. */
export function upgrade(
  port: number,
  options: { protocols?: string[]; origin?: string; host?: string; headers?: Record<string, string> } = {},
): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers, ...(options.host ? { host: options.host } : {}) };
    const socket = new WebSocket(`ws://127.0.0.1:${port}/`, options.protocols ?? [], { origin: options.origin, headers });
    let answeredProtocol: string | undefined;
    socket.once("upgrade", (response) => (answeredProtocol = response.headers["sec-websocket-protocol"] as string | undefined));
    socket.once("open", () => {
      resolve({ opened: true, protocol: socket.protocol, answeredProtocol });
      socket.close();
    });
    socket.once("unexpected-response", (_request, response) => {
      resolve({ opened: false, status: response.statusCode ?? 0 });
      socket.terminate();
    });
    socket.once("error", reject);
  });
}
