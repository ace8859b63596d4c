import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/**
 * A stdio MCP server as a script file, written with the SDK's McpServer:
 * it imports the SDK and zod by absolute URL, so it runs from any folder.
 * Its pid goes to `<dir>/<name>.pid` as it starts. Tools:
 * - `echo {text}`: "echo: <text>"
 * - `env {name}`: the value of that variable in its environment, or "(unset)"
 * - `fail {}`: an isError result "the fail tool always fails"
 * A stubborn one ignores SIGTERM and the end of its input: only SIGKILL ends it.
 * - `wait {}`: writes `<dir>/<name>.waiting`, and answers only when cancelled, writing `<dir>/<name>.cancelled`
 */
export function writeStdioServer(
  dir: string,
  name: string,
  options: { stubborn?: boolean } = {},
): { script: string; pidFile: string; waitingFile: string; cancelledFile: string } {
  const script = join(dir, `${name}.mjs`);
  const pidFile = join(dir, `${name}.pid`);
  const cancelledFile = join(dir, `${name}.cancelled`);
  const waitingFile = join(dir, `${name}.waiting`);
  const sdk = (path: string) => JSON.stringify(import.meta.resolve(`@modelcontextprotocol/sdk/${path}`));
  writeFileSync(
    script,
    `import { writeFileSync } from "node:fs";
import { McpServer } from ${sdk("server/mcp.js")};
import { StdioServerTransport } from ${sdk("server/stdio.js")};
import { z } from ${JSON.stringify(import.meta.resolve("zod"))};
writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
${options.stubborn ? 'process.on("SIGTERM", () => {}); setInterval(() => {}, 60_000);' : ""}
const server = new McpServer({ name: ${JSON.stringify(name)}, version: "1.0.0" });
server.registerTool("echo", { description: "Echoes its text", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text: "echo: " + text }] }));
server.registerTool("env", { description: "Reads an environment variable", inputSchema: { name: z.string() } }, async ({ name }) => ({ content: [{ type: "text", text: process.env[name] ?? "(unset)" }] }));
server.registerTool("fail", { description: "Always fails" }, async () => ({ content: [{ type: "text", text: "the fail tool always fails" }], isError: true }));
server.registerTool("wait", { description: "Waits until cancelled" }, async (extra) => {
  writeFileSync(${JSON.stringify(waitingFile)}, "waiting");
  await new Promise((resolve) => extra.signal.addEventListener("abort", resolve, { once: true }));
  writeFileSync(${JSON.stringify(cancelledFile)}, "cancelled");
  return { content: [{ type: "text", text: "cancelled" }] };
});
await server.connect(new StdioServerTransport());
`,
  );
  return { script, pidFile, waitingFile, cancelledFile };
}

export function readPid(pidFile: string): number {
  return Number(readFileSync(pidFile, "utf8"));
}

/**
 * A Streamable HTTP MCP server on 127.0.0.1 in the test process, stateless
 * (a fresh McpServer per request), with one tool `lookup {key}` answering
 * "value of <key>". It records the headers of every request.
 */
export class HttpMcpServer {
  readonly headers: IncomingMessage["headers"][] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<HttpMcpServer> {
    let self!: HttpMcpServer;
    const server = createServer((req, res) => {
      self.headers.push(req.headers);
      if (req.method !== "POST") {
        res.writeHead(405, { Allow: "POST" }).end();
        return;
      }
      const mcp = new McpServer({ name: "http-test", version: "1.0.0" });
      mcp.registerTool("lookup", { description: "Looks a key up", inputSchema: { key: z.string() } }, async ({ key }) => ({
        content: [{ type: "text", text: `value of ${key}` }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => {
        void transport.close();
        void mcp.close();
      });
      mcp
        .connect(transport)
        .then(() => transport.handleRequest(req, res))
        .catch(() => res.writeHead(500).end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    self = new HttpMcpServer(server, `http://127.0.0.1:${port}/mcp`);
    return self;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
