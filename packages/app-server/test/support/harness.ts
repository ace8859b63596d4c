import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppServerClient, SpawnedServerTransport, type MessageTransport } from "@knightcode/app-server-client";
import type {
  ClientRequestMethod,
  ClientRequestParams,
  ClientRequestResult,
  RequestId,
  ServerNotificationMethod,
  ServerNotificationParams,
} from "@knightcode/app-server-protocol";
import { waitUntil, waitUntilAsync, type ScriptedModelServer } from "@knightcode/testkit";
import { ProtocolValidator } from "./schema.js";

export const BIN = fileURLToPath(new URL("../../../../cli/bin/knightcode.js", import.meta.url));
export const DEFAULT_WAIT_MS = 10_000;

let validator: ProtocolValidator | undefined;
function sharedValidator(): ProtocolValidator {
  validator ??= new ProtocolValidator();
  return validator;
}

export interface ReceivedNotification {
  method: string;
  params: unknown;
  at: number;
}

export interface RawResponse {
  id: RequestId;
  result?: unknown;
  error?: { code: string; message: string; data?: Record<string, unknown> };
}

/** Every wait in the tests goes through it: a condition with a deadline. */
export { waitUntil, waitUntilAsync };

/**
 * One client connection under test: every message in both directions is
 * checked against the generated schema, every notification is recorded, and
 * every wait has a deadline.
 */
export class TestClient {
  readonly client: AppServerClient;
  readonly notifications: ReceivedNotification[] = [];
  readonly schemaViolations: string[] = [];
  readonly rawResponses = new Map<RequestId, RawResponse>();
  /** How many responses each id got: anything but 1 for an answered request is a bug. */
  readonly responseCounts = new Map<RequestId, number>();
  /** How many notifications had arrived when each response did: on one connection, what the server sent before it. */
  readonly notificationsBefore = new Map<RequestId, number>();
  private readonly methodsById = new Map<RequestId, string>();
  /** Every server request this client got, by id. */
  readonly serverRequestMethods = new Map<RequestId, string>();
  private rawId = 0;

  constructor(
    transport: MessageTransport,
    readonly label = "client",
  ) {
    const check = sharedValidator();
    this.client = new AppServerClient(transport, {
      requestTimeoutMs: 15_000,
      tap: {
        outgoing: (message) => {
          if (typeof message.method === "string" && message.id !== undefined) this.methodsById.set(message.id as RequestId, message.method);
          const requestMethod = message.id !== undefined && !("method" in message) ? this.serverRequestMethods.get(message.id as RequestId) : undefined;
          const problem = check.checkClientMessage(message, requestMethod);
          if (problem) this.schemaViolations.push(`${label} sent: ${problem}`);
        },
        incoming: (message) => this.receive(message, check),
        invalid: (text) => this.schemaViolations.push(`${label} received a line that is not a JSON object: ${text.slice(0, 200)}`),
      },
    });
  }

  private receive(message: Record<string, unknown>, check: ProtocolValidator): void {
    const id = message.id as RequestId | undefined;
    if (typeof message.method === "string") {
      if (id !== undefined) this.serverRequestMethods.set(id, message.method);
      else this.notifications.push({ method: message.method, params: message.params, at: Date.now() });
    } else if (id !== undefined) {
      this.rawResponses.set(id, message as unknown as RawResponse);
      this.responseCounts.set(id, (this.responseCounts.get(id) ?? 0) + 1);
      this.notificationsBefore.set(id, this.notifications.length);
    }
    const requestMethod = typeof message.method === "string" || id === undefined ? undefined : this.methodsById.get(id);
    const problem = check.checkServerMessage(message, requestMethod);
    if (problem) this.schemaViolations.push(`${this.label} received: ${problem}`);
  }

  initialize(optOutNotifications?: string[]): Promise<ClientRequestResult<"initialize">> {
    return this.client.initialize({
      clientInfo: { name: "knightcode-tests", version: "0" },
      ...(optOutNotifications ? { capabilities: { optOutNotifications } } : {}),
    });
  }

  request<M extends ClientRequestMethod>(method: M, params: ClientRequestParams<M>): Promise<ClientRequestResult<M>> {
    return this.client.request(method, params);
  }

  /** Sends any object (or text) as one line; the response, if any, is awaited by id. */
  sendRaw(message: unknown): void {
    const text = typeof message === "string" ? message : JSON.stringify(message);
    this.client.sendRaw(text);
  }

  /** A request with params the schema may refuse: sent raw, its answer returned whole. */
  async rawRequest(method: string, params?: unknown, id: RequestId = `raw-${++this.rawId}`): Promise<RawResponse> {
    this.methodsById.set(id, method);
    this.sendRaw(params === undefined ? { id, method } : { id, method, params });
    return waitUntil(`an answer to ${method} (${JSON.stringify(id)})`, () => this.rawResponses.get(id));
  }

  /** The first notification of `method` at or after index `since` that satisfies `match`. */
  async waitForNotification<M extends ServerNotificationMethod>(
    method: M,
    match: (params: ServerNotificationParams<M>) => boolean = () => true,
    options: { since?: number; timeoutMs?: number } = {},
  ): Promise<ServerNotificationParams<M>> {
    const found = await waitUntil(
      `notification ${method}`,
      () => this.notifications.slice(options.since ?? 0).find((n) => n.method === method && match(n.params as ServerNotificationParams<M>)),
      options.timeoutMs,
    );
    return found.params as ServerNotificationParams<M>;
  }

  notificationsOf<M extends ServerNotificationMethod>(method: M): ServerNotificationParams<M>[] {
    return this.notifications.filter((n) => n.method === method).map((n) => n.params as ServerNotificationParams<M>);
  }

  assertNoSchemaViolations(): void {
    if (this.schemaViolations.length > 0) throw new Error(`schema violations:\n${this.schemaViolations.join("\n")}`);
  }
}

export interface SpawnOptions {
  /** A scripted model server to point the agent dir's models.json at. */
  model?: ScriptedModelServer;
  /** Other models.json content (wins over `model`). */
  modelsJson?: unknown;
  args?: string[];
  env?: Record<string, string | undefined>;
  /** Reuse a home (and agent dir) from an earlier server, e.g. to resume its threads. */
  home?: string;
  cwd?: string;
}

/** A real `knightcode app-server` process with its own temporary HOME and agent dir. */
export class TestServer {
  readonly transport: SpawnedServerTransport;
  readonly main: TestClient;
  readonly home: string;
  readonly agentDir: string;
  private stderrText = "";
  private readonly ownsHome: boolean;
  private readonly extraClients: TestClient[] = [];

  constructor(options: SpawnOptions = {}) {
    this.ownsHome = options.home === undefined;
    this.home = options.home ?? mkdtempSync(join(tmpdir(), "kc-test-home-"));
    this.agentDir = join(this.home, ".knightcode", "agent");
    mkdirSync(this.agentDir, { recursive: true });
    const modelsJson = options.modelsJson ?? options.model?.modelsJson();
    if (modelsJson !== undefined) writeFileSync(join(this.agentDir, "models.json"), JSON.stringify(modelsJson));
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: this.home, KNIGHTCODE_CODING_AGENT_DIR: this.agentDir };
    delete env.KNIGHTCODE_APP_SERVER_TOKEN;
    delete env.KNIGHTCODE_CODING_AGENT_SESSION_DIR;
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    this.transport = new SpawnedServerTransport({
      command: process.execPath,
      args: [BIN, "app-server", ...(options.args ?? [])],
      cwd: options.cwd ?? this.home,
      env,
      stderr: "pipe",
    });
    this.transport.child.stderr!.on("data", (chunk: Buffer) => (this.stderrText += chunk.toString()));
    this.main = new TestClient(this.transport, "stdio");
  }

  get stderr(): string {
    return this.stderrText;
  }

  get pid(): number {
    return this.transport.child.pid!;
  }

  /** Resolves with a stderr line matching `pattern`. */
  waitForStderr(pattern: RegExp, timeoutMs = DEFAULT_WAIT_MS): Promise<RegExpMatchArray> {
    return waitUntil(`stderr matching ${pattern}`, () => this.stderrText.match(pattern) ?? undefined, timeoutMs);
  }

  /** A new project folder inside this server's home, with the given files. */
  project(files: Record<string, string> = {}, name = `project-${Math.random().toString(36).slice(2, 8)}`): string {
    const dir = join(this.home, name);
    mkdirSync(dir, { recursive: true });
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    return dir;
  }

  /** A second connection over the `--listen` WebSocket. */
  async connectWebSocket(url: string, token: string, label = "websocket"): Promise<TestClient> {
    const { WebSocketTransport } = await import("@knightcode/app-server-client");
    const client = new TestClient(await WebSocketTransport.connect({ url, token }), label);
    this.extraClients.push(client);
    return client;
  }

  /** Closes stdin and waits for the exit; fails the test on any schema violation seen. */
  async close(timeoutMs = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.transport.close();
    const exit = await this.waitForExit(timeoutMs);
    this.cleanup();
    this.assertNoSchemaViolations();
    return exit;
  }

  async waitForExit(timeoutMs = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`server did not exit within ${timeoutMs} ms; stderr:\n${this.stderrText}`)), timeoutMs);
    });
    try {
      return await Promise.race([this.transport.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    this.transport.child.kill(signal);
  }

  assertNoSchemaViolations(): void {
    this.main.assertNoSchemaViolations();
    for (const client of this.extraClients) client.assertNoSchemaViolations();
  }

  cleanup(): void {
    if (this.transport.child.exitCode === null && this.transport.child.signalCode === null) this.transport.child.kill("SIGKILL");
    if (this.ownsHome) rmSync(this.home, { recursive: true, force: true });
  }
}

/** Spawns a server and completes the handshake on its stdio connection. */
export async function startServer(options: SpawnOptions = {}): Promise<TestServer> {
  const server = new TestServer(options);
  try {
    await server.main.initialize();
  } catch (error) {
    server.cleanup();
    throw new Error(`handshake failed: ${(error as Error).message}; stderr:\n${server.stderr}`);
  }
  return server;
}

/**
 * Runs the `knightcode` binary with `args` to its end, stdin closed (a
 * server that started anyway ends at once), without the token unless `env`
 * gives one: for command lines that must be refused before anything starts.
 */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, KNIGHTCODE_APP_SERVER_TOKEN: "", ...env } });
    child.stdin.end();
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}
