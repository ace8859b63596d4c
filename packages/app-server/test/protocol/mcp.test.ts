import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { ServerRequestParams } from "@knightcode/app-server-protocol";
import { ScriptedModelServer } from "@knightcode/testkit";
import { HttpMcpServer, readPid, writeStdioServer } from "../support/mcp-servers.js";
import { isAlive } from "../support/processes.js";
import { startServer, waitUntil, type TestClient, type TestServer } from "../support/harness.js";

type ApprovalParams = ServerRequestParams<"item/toolCall/requestApproval">;

let model: ScriptedModelServer;
let http: HttpMcpServer;
let scripts: string;

before(async () => {
  model = await ScriptedModelServer.start();
  http = await HttpMcpServer.start();
  scripts = mkdtempSync(join(tmpdir(), "kc-mcp-servers-"));
});
after(async () => {
  await model.close();
  await http.close();
  rmSync(scripts, { recursive: true, force: true });
});

let seq = 0;
/** A stdio entry running a fresh copy of the test server, with its own pid file. */
function stdioServer(extra: Record<string, unknown> = {}, options: { stubborn?: boolean } = {}) {
  const files = writeStdioServer(scripts, `server-${++seq}`, options);
  return { files, entry: { command: process.execPath, args: [files.script], ...extra } };
}

function writeGlobalMcp(server: TestServer, servers: Record<string, unknown>): void {
  writeFileSync(join(server.agentDir, "mcp.json"), JSON.stringify({ mcpServers: servers }));
}

/** Answers every approval with accept, recording what was asked. */
function acceptAll(client: TestClient): { asked: ApprovalParams[]; off: () => void } {
  const asked: ApprovalParams[] = [];
  const off = client.client.onRequest("item/toolCall/requestApproval", (params) => {
    asked.push(params);
    return { decision: "accept" };
  });
  return { asked, off };
}

/** Runs a turn whose model makes `calls` and then says "done"; answers the turn and the two model requests. */
async function toolTurn(client: TestClient, threadId: string, calls: { id: string; name: string; arguments: unknown }[]) {
  model.enqueue({ toolCalls: calls }, { text: "done" });
  const mark = client.notifications.length;
  const modelMark = model.requests.length;
  await client.request("turn/start", { threadId, text: "use the tools" });
  const completed = await client.waitForNotification("turn/completed", (p) => p.threadId === threadId, { since: mark, timeoutMs: 20_000 });
  return { turn: completed.turn, first: model.requests[modelMark]!, followUp: model.requests[modelMark + 1] };
}

/** Runs a turn the model answers with text only; answers its model request. */
async function textTurn(client: TestClient, threadId: string) {
  model.enqueue({ text: "hello" });
  const mark = client.notifications.length;
  const modelMark = model.requests.length;
  await client.request("turn/start", { threadId, text: "hi" });
  await client.waitForNotification("turn/completed", (p) => p.threadId === threadId, { since: mark, timeoutMs: 20_000 });
  return model.requests[modelMark]!;
}

function toolNames(request: { body: Record<string, any> }): string[] {
  return ((request.body.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name).sort();
}

/** The tool messages the model was sent, by call id. */
function toolResults(request: { body: Record<string, any> } | undefined): Map<string, string> {
  const results = new Map<string, string>();
  for (const message of (request?.body.messages ?? []) as { role: string; tool_call_id?: string; content: unknown }[]) {
    if (message.role !== "tool") continue;
    results.set(message.tool_call_id!, typeof message.content === "string" ? message.content : JSON.stringify(message.content));
  }
  return results;
}

describe("spec: MCP in a thread (tools, approvals, results)", () => {
  test("stdio and http tools are offered as <server>_<tool>; in ask mode each call asks with its tool name, and its result reaches the model; an MCP child gets no provider key", async (t) => {
    const local = stdioServer({ env: { FROM_ENTRY: "entry-value" } });
    const server = await startServer({ model, env: { MY_SERVICE_API_KEY: "sk-should-not-reach-mcp", MCP_TEST_TOKEN: "token-from-env" } });
    t.after(() => server.cleanup());
    writeGlobalMcp(server, {
      local: local.entry,
      remote: { url: http.url, headers: { "X-Test": "header-value" }, auth: { bearerTokenEnv: "MCP_TEST_TOKEN" } },
    });
    const cwd = server.project();
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "ask" });
    const { asked, off } = acceptAll(server.main);
    t.after(off);
    const headersBefore = http.headers.length;

    const { turn, first, followUp } = await toolTurn(server.main, thread.id, [
      { id: "call_echo", name: "local_echo", arguments: { text: "hi" } },
      { id: "call_key", name: "local_env", arguments: { name: "MY_SERVICE_API_KEY" } },
      { id: "call_entry", name: "local_env", arguments: { name: "FROM_ENTRY" } },
      { id: "call_lookup", name: "remote_lookup", arguments: { key: "k1" } },
    ]);
    assert.equal(turn.status, "completed", JSON.stringify(turn.error) + server.stderr.slice(-3000));
    for (const name of ["local_echo", "local_env", "local_fail", "local_wait", "remote_lookup"])
      assert.ok(toolNames(first).includes(name), `the model is offered ${name}`);
    assert.deepEqual(
      asked.map((a) => a.tool),
      ["local_echo", "local_env", "local_env", "remote_lookup"],
      "every MCP call asks in ask mode, naming the tool",
    );
    const results = toolResults(followUp);
    assert.match(results.get("call_echo")!, /echo: hi/);
    assert.match(results.get("call_key")!, /\(unset\)/, "the provider key is withheld from the MCP child");
    assert.match(results.get("call_entry")!, /entry-value/, "the entry's own env reaches it");
    assert.match(results.get("call_lookup")!, /value of k1/);
    assert.ok(
      http.headers.slice(headersBefore).some((h) => h["x-test"] === "header-value"),
      "the entry's headers reach the http server",
    );
    assert.ok(
      http.headers.slice(headersBefore).some((h) => h.authorization === "Bearer token-from-env"),
      "auth.bearerTokenEnv reads the server's environment",
    );
    assert.equal((await server.close()).code, 0);
  });

  test("fullAccess runs MCP calls without asking; an isError result is a failed call with its text; a proxy server offers one tool that calls by name; a disabled server starts nothing", async (t) => {
    const local = stdioServer();
    const proxied = stdioServer({ exposure: "proxy" });
    const disabled = stdioServer({ enabled: false });
    const server = await startServer({ model });
    t.after(() => server.cleanup());
    writeGlobalMcp(server, { local: local.entry, docs: proxied.entry, off: disabled.entry });
    const { thread } = await server.main.request("thread/start", { cwd: server.project(), approvalMode: "fullAccess" });
    const { asked, off } = acceptAll(server.main);
    t.after(off);

    const { turn, first, followUp } = await toolTurn(server.main, thread.id, [
      { id: "call_fail", name: "local_fail", arguments: {} },
      { id: "call_proxy", name: "mcp_docs", arguments: { tool: "echo", arguments: { text: "via proxy" } } },
    ]);
    assert.equal(turn.status, "completed", JSON.stringify(turn.error) + server.stderr.slice(-3000));
    assert.equal(asked.length, 0, "fullAccess never asks");
    const names = toolNames(first);
    assert.ok(names.includes("mcp_docs") && !names.some((n) => n.startsWith("docs_")), `proxy exposure offers one tool: ${names.join(", ")}`);
    assert.ok(!names.some((n) => n.startsWith("off_")), "a disabled server offers nothing");
    assert.equal(existsSync(disabled.files.pidFile), false, "a disabled server is never started");
    const results = toolResults(followUp);
    assert.match(results.get("call_fail")!, /the fail tool always fails/);
    assert.match(results.get("call_proxy")!, /echo: via proxy/);
    const failed = server.main
      .notificationsOf("item/completed")
      .map((p) => p.item as { id: string; type: string; status?: string })
      .find((item) => item.id === "call_fail");
    assert.equal(failed?.status, "failed", "an isError result fails the call");
    assert.equal((await server.close()).code, 0);
  });

  test("interrupting a turn cancels its running MCP call at the server", async (t) => {
    const local = stdioServer();
    const server = await startServer({ model });
    t.after(() => server.cleanup());
    writeGlobalMcp(server, { local: local.entry });
    const { thread } = await server.main.request("thread/start", { cwd: server.project(), approvalMode: "fullAccess" });
    model.enqueue({ toolCalls: [{ id: "call_wait", name: "local_wait", arguments: {} }] }, { text: "after" });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "wait" });
    await waitUntil("the MCP server to get the call", () => existsSync(local.files.waitingFile));
    await server.main.request("turn/interrupt", { threadId: thread.id });
    const completed = await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
    assert.equal(completed.turn.status, "interrupted");
    await waitUntil("the MCP server to see the cancellation", () => existsSync(local.files.cancelledFile));
    assert.equal((await server.close()).code, 0);
  });

  test("a server that fails to start is a warning naming it; the thread and its other servers go on; /mcp shows each server's state", async (t) => {
    const local = stdioServer();
    const server = await startServer({ model });
    t.after(() => server.cleanup());
    writeGlobalMcp(server, {
      missing: { command: join(scripts, "no-such-program") },
      crashing: { command: process.execPath, args: ["-e", "process.exit(3)"] },
      local: local.entry,
    });
    const started = await server.main.request("thread/start", { cwd: server.project(), approvalMode: "fullAccess" });
    const request = await textTurn(server.main, started.thread.id);
    assert.ok(toolNames(request).includes("local_echo"), "the working server's tools are offered");
    const warnings = [...started.warnings, ...server.main.notificationsOf("warning").map((w) => w.warning)].map((w) => w.message);
    for (const name of ["missing", "crashing"])
      assert.ok(
        warnings.some((m) => m.startsWith(`MCP server ${name} failed to start`)),
        `a warning names ${name}: ${warnings.join(" | ")}`,
      );
    assert.ok(!warnings.some((m) => m.includes("MCP server local")), "the working server gives no warning");

    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: started.thread.id, text: "/mcp" });
    const notices = await waitUntil("three /mcp notices", () => {
      const found = server.main.notifications
        .slice(mark)
        .filter((n) => n.method === "ui/notify")
        .map((n) => n.params as { message: string; level: string });
      return found.length >= 3 ? found : undefined;
    });
    assert.ok(
      notices.some((n) => /^MCP local \(stdio .*\): connected, 4 tools$/.test(n.message) && n.level === "info"),
      JSON.stringify(notices),
    );
    assert.ok(
      notices.some((n) => /^MCP missing \(stdio .*\): failed: /.test(n.message) && n.level === "warning"),
      JSON.stringify(notices),
    );
    assert.equal((await server.close()).code, 0);
  });
});

describe("spec: MCP server processes end with their thread", () => {
  /** A server with one stdio MCP server, and a thread whose first turn saw it connected; answers the child's pid. */
  async function connectedChild(t: { after(fn: () => void): void }, env: Record<string, string> = {}) {
    // It ignores SIGTERM and the end of its input, so only a real kill passes.
    const local = stdioServer({}, { stubborn: true });
    const server = await startServer({ model, env });
    t.after(() => server.cleanup());
    writeGlobalMcp(server, { local: local.entry });
    const { thread } = await server.main.request("thread/start", { cwd: server.project(), approvalMode: "fullAccess" });
    assert.ok(toolNames(await textTurn(server.main, thread.id)).includes("local_echo"));
    const pid = readPid(local.files.pidFile);
    t.after(() => {
      if (isAlive(pid)) process.kill(pid, "SIGKILL");
    });
    assert.ok(isAlive(pid));
    return { server, threadId: thread.id, pid };
  }

  test("when the thread unloads", async (t) => {
    const { server, threadId, pid } = await connectedChild(t, { KNIGHTCODE_THREAD_IDLE_MS: "200" });
    const mark = server.main.notifications.length;
    await server.main.request("thread/unsubscribe", { threadId });
    await server.main.waitForNotification("thread/status/changed", (p) => p.threadId === threadId && p.status.type === "notLoaded", { since: mark });
    await waitUntil(`MCP server ${pid} to exit`, () => !isAlive(pid));
    assert.equal((await server.close()).code, 0);
  });

  test("when the server shuts down (stdin closed)", async (t) => {
    const { server, pid } = await connectedChild(t);
    assert.equal((await server.close()).code, 0);
    await waitUntil(`MCP server ${pid} to exit`, () => !isAlive(pid));
  });

  test("when the server gets SIGTERM", async (t) => {
    const { server, pid } = await connectedChild(t);
    server.kill("SIGTERM");
    await server.waitForExit();
    await waitUntil(`MCP server ${pid} to exit`, () => !isAlive(pid));
  });
});
