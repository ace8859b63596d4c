import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ProcessGroups } from "@knightcode/system/process/groups";
import { isStdioEntry, serverCwd, type McpServerEntry } from "./config.js";
import { RunnerStdioTransport } from "./stdio-transport.js";
import type { McpCallResult } from "./tool-result.js";

/** One tool a server offers, as `tools/list` described it. */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ConnectOptions {
  name: string;
  entry: McpServerEntry;
  /** The thread's folder: an entry's relative `cwd` is taken from here. */
  cwd: string;
  /**
   * Where a stdio server starts when its entry names no `cwd`: for a global
   * entry an empty folder of the server's own, so that `npx`, `uvx` or
   * `python -m` never find a program or module in the project before their
   * own; for a trusted project's entry, the project.
   */
  defaultCwd: string;
  /** The thread's process groups: a stdio server dies with its thread at the latest. */
  processes?: ProcessGroups;
  /** The environment a stdio server starts with, before its entry's `env`. */
  childEnv: NodeJS.ProcessEnv;
  /** The server's own environment, where `auth.bearerTokenEnv` is read. */
  serverEnv: NodeJS.ProcessEnv;
  /** Bounds the whole start: spawn or first request, the handshake and the tool list. */
  timeoutMs: number;
  signal: AbortSignal;
  /** A line of the server's stderr (stdio) for the log. */
  log(line: string): void;
  /** The connection ended without close() being called: the program exited, the stream broke. */
  onLost(): void;
}

/** A live connection to one MCP server. */
export interface McpConnection {
  readonly tools: McpToolInfo[];
  /** The stdio server's process id. */
  readonly pid: number | undefined;
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal | undefined, timeoutMs: number): Promise<McpCallResult>;
  /** Ends the session: a stdio server's input is closed, then it is killed if it lingers. */
  close(): Promise<void>;
}

const MAX_TOOLS = 1000;

type Sdk = [
  typeof import("@modelcontextprotocol/sdk/client/index.js"),
  typeof import("@modelcontextprotocol/sdk/shared/stdio.js"),
  typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
];
let sdk: Promise<Sdk> | undefined;

/** The SDK loads with the first connection: a thread without MCP servers never reads it. */
function loadSdk(): Promise<Sdk> {
  sdk ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/shared/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]);
  return sdk;
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}

/** A transport, and what ends the server's side of the session before it closes (an http session's DELETE). */
interface Opened {
  transport: Transport;
  endSession?(): Promise<void>;
}

function makeTransport(options: ConnectOptions, modules: Sdk): Opened {
  const [, stdio, http] = modules;
  const { entry } = options;
  if (isStdioEntry(entry)) {
    const transport = new RunnerStdioTransport(
      {
        command: entry.command,
        args: entry.args ?? [],
        env: { ...stringEnv(options.childEnv), ...(entry.env ?? {}) },
        cwd: serverCwd(entry, options.cwd, options.defaultCwd),
        ...(options.processes ? { processes: options.processes } : {}),
        onStderrLine: (line) => options.log(`mcp ${options.name}: ${line}`),
      },
      stdio,
    );
    return { transport };
  }
  const headers: Record<string, string> = { ...(entry.headers ?? {}) };
  if (entry.auth) {
    const token = options.serverEnv[entry.auth.bearerTokenEnv];
    if (!token) throw new Error(`auth.bearerTokenEnv names ${entry.auth.bearerTokenEnv}, which is not set in the server's environment`);
    headers.Authorization = `Bearer ${token}`;
  }
  const transport = new http.StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers } });
  return { transport, endSession: () => transport.terminateSession() };
}

function toolInfo(tool: { name: string; description?: string; inputSchema: Record<string, unknown> }): McpToolInfo {
  return { name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema };
}

async function listAllTools(client: Client, signal: AbortSignal, timeoutMs: number): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { signal, timeout: timeoutMs });
    for (const tool of page.tools) tools.push(toolInfo(tool));
    cursor = page.nextCursor;
  } while (cursor !== undefined && tools.length < MAX_TOOLS);
  return tools.slice(0, MAX_TOOLS);
}

/**
 * Starts (stdio) or reaches (Streamable HTTP) one server, completes the MCP
 * handshake and lists its tools, within `timeoutMs`. On any failure what was
 * started is closed before the error is thrown, so a failed server leaves no
 * process behind.
 */
export async function connectMcpServer(options: ConnectOptions): Promise<McpConnection> {
  const modules = await loadSdk();
  const { transport, endSession } = makeTransport(options, modules);
  const client = new modules[0].Client({ name: "knightcode", version: "0.1.0" }, { capabilities: {} });
  let closing = false;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  const close = async () => {
    if (closing) return;
    closing = true;
    await endSession?.().catch(() => undefined);
    await client.close();
  };
  client.onclose = () => {
    if (!closing) {
      closing = true;
      options.onLost();
    }
  };
  try {
    signal.throwIfAborted();
    await client.connect(transport, { signal, timeout: options.timeoutMs });
    const tools = await listAllTools(client, signal, options.timeoutMs);
    return {
      tools,
      pid: transport instanceof RunnerStdioTransport ? transport.pid : undefined,
      call: (tool, args, callSignal, timeoutMs) =>
        client.callTool({ name: tool, arguments: args }, undefined, {
          ...(callSignal ? { signal: callSignal } : {}),
          timeout: timeoutMs,
          resetTimeoutOnProgress: true,
        }) as Promise<McpCallResult>,
      close,
    };
  } catch (error) {
    await close().catch(() => undefined);
    if (timeout.aborted && !options.signal.aborted) throw new Error(`it did not answer within ${options.timeoutMs} ms`, { cause: error });
    throw error;
  }
}
