import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import type { MessageTransport } from "@knightcode/app-server-protocol";
import { waitUntil, type ScriptedModelServer } from "@knightcode/testkit";

export const BIN = fileURLToPath(new URL("../../bin/knightcode.js", import.meta.url));

/** A `knightcode desktop` process with its own HOME, agent dir and page folder. */
export class DesktopProcess {
  readonly child: ChildProcess;
  readonly home: string;
  readonly page: string;
  stdout = "";
  stderr = "";
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(options: { args?: string[]; env?: Record<string, string>; model?: ScriptedModelServer; home?: string } = {}) {
    this.home = options.home ?? mkdtempSync(join(tmpdir(), "kc-desktop-"));
    const agentDir = join(this.home, "agent");
    this.page = join(this.home, "page");
    mkdirSync(agentDir, { recursive: true });
    mkdirSync(this.page, { recursive: true });
    writeFileSync(join(this.page, "index.html"), "<!doctype html><title>desktop test page</title>");
    if (options.model) writeFileSync(join(agentDir, "models.json"), JSON.stringify(options.model.modelsJson()));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: this.home,
      KNIGHTCODE_CODING_AGENT_DIR: agentDir,
      KNIGHTCODE_DESKTOP_PAGE: this.page,
      ...options.env,
    };
    if (options.env?.KNIGHTCODE_APP_SERVER_TOKEN === undefined) delete env.KNIGHTCODE_APP_SERVER_TOKEN;
    // Its own process group, so the test can tell whether anything it started outlives it.
    this.child = spawn(process.execPath, [BIN, "desktop", ...(options.args ?? ["--no-open"])], {
      cwd: this.home,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    this.child.stdout!.on("data", (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.child.on("exit", (code, signal) => (this.exit = { code, signal }));
  }

  /** The one line printed on stdout: the page URL with the token in its fragment. */
  async url(): Promise<URL> {
    const line = await waitUntil("the desktop URL on stdout", () => (this.exit === undefined ? this.stdout.match(/^(.*)\n/)?.[1] : `exited: ${this.stderr}`));
    return new URL(line);
  }

  exited(timeoutMs = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return waitUntil("the desktop process to exit", () => this.exit, timeoutMs);
  }

  /** Whether any process of its group is still alive. */
  groupAlive(): boolean {
    try {
      process.kill(-this.child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  }

  /** Stops it as a user would (SIGTERM), so that it removes what it made outside its home; SIGKILL if it does not go. */
  async stop(): Promise<void> {
    if (this.exit === undefined) {
      this.child.kill("SIGTERM");
      await this.exited().catch(async () => {
        this.child.kill("SIGKILL");
        await this.exited();
      });
    }
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** The token a page reads from its URL fragment. */
export function tokenOf(url: URL): string {
  return new URLSearchParams(url.hash.slice(1)).get("token") ?? "";
}

/**
 * A transport over a WebSocket opened the way the page opens one: to the
 * host it was loaded from, from its origin, with the token as a subprotocol.
 */
export async function browserTransport(page: URL, options: { token?: string; origin?: string } = {}): Promise<MessageTransport & { protocol: string }> {
  const token = options.token ?? tokenOf(page);
  const socket = new WebSocket(`ws://${page.host}/`, ["knightcode", `knightcode.bearer.${Buffer.from(token).toString("base64url")}`], {
    origin: options.origin ?? page.origin,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("unexpected-response", (_request, response) => {
      socket.terminate();
      reject(new Error(`HTTP ${response.statusCode}`));
    });
    socket.once("error", reject);
  });
  const closes = new Set<(reason?: Error) => void>();
  socket.on("close", () => {
    for (const listener of closes) listener();
  });
  return {
    protocol: socket.protocol,
    send: (text) => {
      if (socket.readyState === socket.OPEN) socket.send(text);
    },
    onMessage: (listener) => {
      const receive = (data: WebSocket.RawData) => listener(data.toString());
      socket.on("message", receive);
      return () => socket.off("message", receive);
    },
    onClose: (listener) => {
      closes.add(listener);
      return () => closes.delete(listener);
    },
    close: () => socket.close(1000),
  };
}
