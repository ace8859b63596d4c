import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppServerClient, type WebSocketTransport } from "@knightcode/app-server-client";
import type { ScriptedModelServer } from "@knightcode/testkit";
import { waitUntil } from "@knightcode/testkit";

export const BIN = fileURLToPath(new URL("../../../../cli/bin/knightcode.js", import.meta.url));
/** Where the tests leave their screenshots: packages/desktop/test-output/screenshots. */
export const SCREENSHOTS = fileURLToPath(new URL("../../../test-output/screenshots/", import.meta.url));
export const WAIT_MS = 20_000;

export interface DesktopOptions {
  model?: ScriptedModelServer;
  /** Reuse a home (and its threads), as a restart does. */
  home?: string;
  port?: number;
  token?: string;
  args?: string[];
  env?: Record<string, string | undefined>;
  /** The folder the server starts in (its printed address names it as the page's project); the home by default. */
  cwd?: string;
  /** A folder with a stand-in `xdg-open`: put first on PATH, and the browser is "opened" (no `--no-open`). */
  opener?: string;
}

/** `knightcode desktop --no-open` in a throwaway home, with the scripted model as its only configured provider. */
export class DesktopServer {
  readonly home: string;
  readonly agentDir: string;
  readonly child: ChildProcess;
  url = "";
  port = 0;
  token = "";
  private stdoutText = "";
  private readonly clients: AppServerClient<WebSocketTransport>[] = [];
  private stderrText = "";
  private exited: Promise<number | null>;

  private constructor(private readonly options: DesktopOptions) {
    this.home = options.home ?? mkdtempSync(join(tmpdir(), "kc-desktop-"));
    this.agentDir = join(this.home, ".knightcode", "agent");
    mkdirSync(this.agentDir, { recursive: true });
    const modelsJson = options.model?.modelsJson();
    if (modelsJson !== undefined) writeFileSync(join(this.agentDir, "models.json"), JSON.stringify(modelsJson));
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: this.home, KNIGHTCODE_CODING_AGENT_DIR: this.agentDir };
    delete env.KNIGHTCODE_APP_SERVER_TOKEN;
    delete env.KNIGHTCODE_CODING_AGENT_SESSION_DIR;
    if (options.token !== undefined) env.KNIGHTCODE_APP_SERVER_TOKEN = options.token;
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    if (options.opener !== undefined) env.PATH = `${options.opener}:${env.PATH ?? ""}`;
    const args = [
      BIN,
      "desktop",
      ...(options.opener === undefined ? ["--no-open"] : []),
      ...(options.port !== undefined ? ["--port", String(options.port)] : []),
      ...(options.args ?? []),
    ];
    this.child = spawn(process.execPath, args, { cwd: options.cwd ?? this.home, env, stdio: ["ignore", "pipe", "pipe"] });
    this.child.stdout!.on("data", (chunk: Buffer) => (this.stdoutText += chunk.toString()));
    this.child.stderr!.on("data", (chunk: Buffer) => (this.stderrText += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
  }

  static async start(options: DesktopOptions = {}): Promise<DesktopServer> {
    const server = new DesktopServer(options);
    let exitCode: number | null | undefined;
    void server.exited.then((code) => (exitCode = code));
    const match = await waitUntil(
      "knightcode desktop to print its address",
      () => {
        if (exitCode !== undefined) throw new Error(`knightcode desktop exited (${exitCode}): ${server.stderrText}`);
        return server.stdoutText.match(/^(http:\/\/127\.0\.0\.1:(\d+)\/)#token=([^&\s]+)(&\S*)?\n/m) ?? undefined;
      },
      WAIT_MS,
    );
    server.url = `${match[1]}#token=${match[3]}${match[4] ?? ""}`;
    server.port = Number(match[2]);
    server.token = match[3]!;
    return server;
  }

  get stderr(): string {
    return this.stderrText;
  }

  get stdout(): string {
    return this.stdoutText;
  }

  /** The page's address without the token. */
  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * A second connection from Node, through our own client and the same token:
   * for setting up threads and checking the server's side of what the page did.
   */
  async client(): Promise<AppServerClient<WebSocketTransport>> {
    const client = await AppServerClient.connectWebSocket({ url: `ws://127.0.0.1:${this.port}`, token: this.token, requestTimeoutMs: WAIT_MS });
    await client.initialize({ clientInfo: { name: "desktop-test", version: "1" } });
    this.clients.push(client);
    return client;
  }

  /** The page's address opened on one thread. */
  threadUrl(threadId: string): string {
    return `${this.origin}/?thread=${encodeURIComponent(threadId)}#token=${this.token}`;
  }

  /** A project folder inside the home, with the given files. */
  project(files: Record<string, string> = {}, name = `project-${Math.random().toString(36).slice(2, 8)}`): string {
    const dir = join(this.home, name);
    mkdirSync(dir, { recursive: true });
    for (const [path, text] of Object.entries(files)) {
      const full = join(dir, path);
      mkdirSync(join(full, ".."), { recursive: true });
      writeFileSync(full, text);
    }
    return dir;
  }

  /** Stops the server as a user would (SIGTERM); keeps the home. */
  async stop(): Promise<number | null> {
    await Promise.all(this.clients.splice(0).map((client) => client.close()));
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGTERM");
    return this.exited;
  }

  /** Starts it again on the same port, token and home: a server restart. */
  async restart(): Promise<DesktopServer> {
    await this.stop();
    return DesktopServer.start({ ...this.options, home: this.home, port: this.port, token: this.token });
  }

  /** Stops it and removes the home. */
  async dispose(): Promise<void> {
    await this.stop();
    if (this.options.home === undefined) rmSync(this.home, { recursive: true, force: true });
  }
}

/** Debian's Chromium, or the one KNIGHTCODE_CHROMIUM names; undefined when there is none (the browser tests then skip). */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.KNIGHTCODE_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter((p): p is string => !!p);
  return candidates.find((path) => existsSync(path));
}

/** The reason a browser test is skipped, for node:test's `skip` option; false when Chromium is here. */
export const NO_BROWSER: string | false = chromiumPath() ? false : "Chromium is not installed (apt-get install chromium); .ci/run installs it";

const require = createRequire(import.meta.url);
let axeSource: string | undefined;
export function axeScript(): string {
  axeSource ??= readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  return axeSource;
}
