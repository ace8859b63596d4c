import { Compile } from "typebox/compile";
import type { BuiltinServices } from "../extensions/host-deps.js";
import type { ExtensionAPI, ExtensionToolDefinition } from "../extensions/types.js";
import { connectMcpServer, type McpConnection, type McpToolInfo } from "./connection.js";
import type { McpServerInfo } from "./files.js";
import { ToolNames } from "./tool-names.js";
import { convertCallResult, resultText } from "./tool-result.js";

export const MCP_CONNECT_TIMEOUT_MS = 30_000;
export const MCP_CALL_TIMEOUT_MS = 300_000;
/** How long a turn waits for connections still under way before its first model request; under the 30 s a hook may take. */
export const MCP_FIRST_TURN_WAIT_MS = 15_000;
const MAX_DESCRIPTION = 4000;
const MAX_PROXY_DESCRIPTION = 8000;

type ServerStatus = "disabled" | "connecting" | "connected" | "failed" | "closed";

interface ServerState {
  info: McpServerInfo;
  status: ServerStatus;
  error?: string;
  connection?: McpConnection;
  /** The names its tools were registered under. */
  toolNames: string[];
}

export interface ThreadServersOptions {
  api: ExtensionAPI;
  services: BuiltinServices;
  servers: McpServerInfo[];
  /** The server's own environment, for `auth.bearerTokenEnv`. */
  serverEnv: NodeJS.ProcessEnv;
  /** Where a stdio server without a `cwd` of its own starts: an empty folder no project can fill. */
  neutralCwd(): string;
  connectTimeoutMs?: number;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 3)}...`;
}

/**
 * The schema the model is given for an MCP tool's input: the server's own
 * when our validator can compile it, else any object (the server checks
 * the arguments itself). An input schema is always an object schema.
 */
function parametersFor(inputSchema: Record<string, unknown>): object {
  const schema = { ...inputSchema, type: "object" };
  delete (schema as { $schema?: unknown }).$schema;
  try {
    Compile(schema as never);
    return schema;
  } catch {
    return { type: "object", additionalProperties: true };
  }
}

/**
 * One thread's MCP servers: connected when the thread starts, each on its
 * own so that one that fails is a warning naming it and the others go on;
 * their tools registered as each connection completes; all closed when the
 * thread's extensions go.
 */
export class ThreadServers {
  private readonly states: ServerState[];
  private readonly names = new ToolNames();
  private readonly pending: Promise<void>[] = [];
  private readonly stop = new AbortController();
  private started = false;

  constructor(private readonly options: ThreadServersOptions) {
    this.states = options.servers.map((info) => ({ info, status: info.enabled ? "connecting" : "disabled", toolNames: [] }));
  }

  /** Starts connecting every enabled server, without waiting for any. */
  start(): void {
    if (this.started || this.stop.signal.aborted) return;
    this.started = true;
    for (const state of this.states) if (state.status === "connecting") this.pending.push(this.connect(state));
  }

  /**
   * Resolves once every connection started so far completed or failed, or
   * after `maxWaitMs`, or when `signal` aborts: the wait ends, never the
   * connections, and a server that connects later offers its tools from
   * the next model request on.
   */
  async ready(signal: AbortSignal | undefined, maxWaitMs = MCP_FIRST_TURN_WAIT_MS): Promise<void> {
    if (this.pending.length === 0 || signal?.aborted) return;
    let stopWaiting!: () => void;
    const stopped = new Promise<void>((resolve) => (stopWaiting = resolve));
    const timer = setTimeout(stopWaiting, maxWaitMs);
    signal?.addEventListener("abort", stopWaiting, { once: true });
    try {
      await Promise.race([Promise.all(this.pending), stopped]);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stopWaiting);
    }
  }

  /** Stops every connection under way and closes every open one; their programs end with them. */
  async close(): Promise<void> {
    this.stop.abort();
    await Promise.all(this.pending);
    await Promise.all(
      this.states.map(async (state) => {
        const connection = state.connection;
        state.connection = undefined;
        if (state.status !== "disabled") state.status = "closed";
        await connection?.close().catch((error: unknown) => this.options.services.log(`closing MCP server ${state.info.name}: ${describe(error)}`));
      }),
    );
  }

  /** One line per server: how it is reached and how it is doing, for `/mcp`. */
  summary(): string[] {
    return this.states.map(({ info, status, error, toolNames }) => {
      const what =
        status === "connected"
          ? `connected, ${toolNames.length} tool${toolNames.length === 1 ? "" : "s"}`
          : status === "failed"
            ? `failed: ${error ?? "unknown"}`
            : status;
      return `${info.name} (${info.transport} ${info.target}, ${info.exposure}): ${what}`;
    });
  }

  private async connect(state: ServerState): Promise<void> {
    const { info } = state;
    const { services } = this.options;
    try {
      const connection = await connectMcpServer({
        name: info.name,
        entry: info.entry,
        cwd: this.options.api.cwd,
        // The user's own global entries start in a folder no project can fill; a trusted project's entries (or overrides) start in the project, as their author wrote them for.
        defaultCwd: info.scope === "project" || info.override !== undefined ? this.options.api.cwd : this.options.neutralCwd(),
        processes: services.processes,
        childEnv: services.childEnv(),
        serverEnv: this.options.serverEnv,
        timeoutMs: this.options.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS,
        signal: this.stop.signal,
        log: (line) => services.log(line),
        onLost: () => this.lost(state),
      });
      if (this.stop.signal.aborted) {
        await connection.close();
        return;
      }
      state.connection = connection;
      state.status = "connected";
      this.register(state, connection.tools);
    } catch (error) {
      if (this.stop.signal.aborted) return;
      state.status = "failed";
      state.error = describe(error);
      services.warn({ message: `MCP server ${info.name} failed to start: ${state.error}`, source: "extension", path: info.override ?? info.source });
    }
  }

  private lost(state: ServerState): void {
    if (this.stop.signal.aborted || state.status !== "connected") return;
    state.status = "failed";
    state.error = "its connection closed";
    state.connection = undefined;
    this.options.services.warn({
      message: `MCP server ${state.info.name} stopped: its connection closed; its tools fail until the thread loads again`,
      source: "extension",
      path: state.info.override ?? state.info.source,
    });
  }

  private register(state: ServerState, tools: McpToolInfo[]): void {
    const definitions =
      state.info.exposure === "proxy" ? (tools.length > 0 ? [this.proxyTool(state, tools)] : []) : tools.map((tool) => this.directTool(state, tool));
    for (const definition of definitions) {
      try {
        this.options.api.registerTool(definition);
        state.toolNames.push(definition.name);
      } catch (error) {
        this.options.services.warn({
          message: `MCP server ${state.info.name}: tool ${definition.name} was not registered: ${describe(error)}`,
          source: "extension",
          path: state.info.source,
        });
      }
    }
  }

  private async call(state: ServerState, tool: string, args: unknown, signal: AbortSignal | undefined) {
    const connection = state.connection;
    if (!connection) throw new Error(`MCP server ${state.info.name} is not connected (${state.error ?? state.status})`);
    const input = args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
    const raw = await connection.call(tool, input, signal, MCP_CALL_TIMEOUT_MS);
    const result = convertCallResult(raw);
    if (result.isError) throw new Error(resultText(result.content) || `the MCP tool ${tool} failed`);
    return { content: result.content, details: { server: state.info.name, tool, ...(result.truncated ? { truncated: true } : {}) } };
  }

  private directTool(state: ServerState, tool: McpToolInfo): ExtensionToolDefinition {
    const server = state.info.name;
    return {
      name: this.names.claim(ToolNames.direct(server, tool.name)),
      label: `${server}: ${tool.name}`,
      description: cut(tool.description || `The ${tool.name} tool of the MCP server ${server}.`, MAX_DESCRIPTION),
      parameters: parametersFor(tool.inputSchema),
      execute: (_id, params, signal) => this.call(state, tool.name, params, signal),
    };
  }

  /** One tool for the whole server: its description lists the tools and their arguments, its input names one. */
  private proxyTool(state: ServerState, tools: McpToolInfo[]): ExtensionToolDefinition {
    const server = state.info.name;
    const lines: string[] = [];
    let length = 0;
    for (const [index, tool] of tools.entries()) {
      const properties = Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
      const required = new Set(Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as string[]) : []);
      const args = properties.map((p) => (required.has(p) ? p : `${p}?`)).join(", ");
      const line = `- ${tool.name}(${args}): ${cut(tool.description.split("\n")[0] ?? "", 200)}`;
      if (length + line.length > MAX_PROXY_DESCRIPTION) {
        lines.push(`- ... and ${tools.length - index} more`);
        break;
      }
      lines.push(line);
      length += line.length + 1;
    }
    const about = state.info.description ? ` (${cut(state.info.description, 500)})` : "";
    return {
      name: this.names.claim(ToolNames.proxy(server)),
      label: `${server} (MCP)`,
      description: `Calls a tool of the MCP server ${server}${about}: give the tool's name and its arguments as an object. Its tools:\n${lines.join("\n")}`,
      parameters: {
        type: "object",
        properties: {
          tool: { type: "string", enum: tools.map((tool) => tool.name), description: "The tool to call" },
          arguments: { type: "object", description: "The tool's arguments" },
        },
        required: ["tool"],
      },
      execute: (_id, params: { tool: string; arguments?: unknown }, signal) => this.call(state, params.tool, params.arguments ?? {}, signal),
    };
  }
}
