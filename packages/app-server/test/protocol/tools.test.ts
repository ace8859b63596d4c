import assert from "node:assert/strict";
import { SUBAGENT_TOOLS } from "@knightcode/agent/tools/subagents";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { ClientRequestParams, ServerRequestParams } from "@knightcode/app-server-protocol";
import { AppServerError } from "@knightcode/app-server-client";
import { ScriptedModelServer, type RecordedRequest } from "@knightcode/testkit";
import { ScratchFiles, statTree } from "../support/files.js";
import { startServer, type TestServer } from "../support/harness.js";

// tool/list, tool/settings/read and tool/settings/write (SPEC-NOTES
// "Settings, tools, MCP, resources, file search, accounts"), and the
// websearch tool those settings configure.

const SEARCH_KEY = "BSA-protocol-secret-5c1e9d";

let model: ScriptedModelServer;
let scratch: ScratchFiles;
before(async () => {
  model = await ScriptedModelServer.start();
  scratch = new ScratchFiles("kc-tools-");
});
after(async () => {
  await model.close();
  scratch.remove();
});

const scratchFile = (name: string, content?: string): string => scratch.file(name, content);

/** An extension with a tool of its own, one that replaces the built-in read, and a session_start handler that leaves `marker`. */
function toolExtension(marker: string): string {
  return `
import { appendFileSync } from "node:fs";
export default function (kc: any) {
  kc.registerTool({ name: "deploy", description: "Deploys a build", parameters: { type: "object", properties: {} }, execute: async () => ({ content: [{ type: "text", text: "deployed" }], details: {} }) });
  kc.registerTool({ name: "read", description: "Reads through the extension", parameters: { type: "object", properties: {} }, execute: async () => ({ content: [{ type: "text", text: "read" }], details: {} }) });
  kc.on("session_start", (event: any) => { appendFileSync(${JSON.stringify(marker)}, event.reason + "\\n"); });
}
`;
}

async function rejectsWith(promise: Promise<unknown>, code: string, pattern?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppServerError, String(error));
    assert.equal(error.code, code, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

const toolNames = (request: RecordedRequest | undefined) => ((request?.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

/** Starts a thread in `cwd` and runs one turn the model answers with text; the tools the model was offered. */
async function offeredTools(server: TestServer, cwd: string): Promise<string[]> {
  const { thread } = await server.main.request("thread/start", { cwd, model: { provider: "scripted", id: "scripted-model" } });
  model.enqueue({ text: "ok" });
  const before = model.requests.length;
  const mark = server.main.notifications.length;
  await server.main.request("turn/start", { threadId: thread.id, text: "hello" });
  await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
  return toolNames(model.requests[before]);
}

describe("spec: tool/list", () => {
  test("without cwd: our built-ins, ask_user and submit_plan, each once; defaultTools is read, bash, edit, write and the sub-agent tools, exactly what a new thread offers; nothing written", async () => {
    const server = await startServer({ model });
    try {
      await server.main.request("model/list", {});
      const before = statTree(server.home, join(server.agentDir, "cache"));
      const { tools, defaultTools } = await server.main.request("tool/list", {});
      assert.deepEqual(
        tools.map((t) => t.name),
        ["agent_close", "agent_send", "agent_start", "agent_wait", "ask_user", "bash", "edit", "find", "grep", "ls", "read", "submit_plan", "write"],
      );
      assert.ok(tools.every((t) => t.source === "builtin" && t.description.length > 0));
      // The sub-agent tools are offered wherever they are present: a thread that is no sub-agent has them.
      assert.deepEqual(defaultTools, ["read", "bash", "edit", "write", ...SUBAGENT_TOOLS]);
      assert.deepEqual(statTree(server.home, join(server.agentDir, "cache")), before, "tool/list wrote nothing");
      assert.deepEqual(await offeredTools(server, server.project({})), defaultTools, "ask_user and submit_plan wait for plan mode");
      await server.close();
    } finally {
      server.cleanup();
    }
  });

  test("with cwd: extension tools (one replacing read), websearch once switched on, a trusted project's defaultTools; a new thread offers the model exactly defaultTools", async () => {
    const marker = scratchFile("sessions-started.txt");
    const extension = scratchFile("tools.ts", toolExtension(marker));
    const server = await startServer({ model, args: ["-e", extension] });
    try {
      writeFileSync(join(server.agentDir, "settings.json"), JSON.stringify({ defaultTools: ["+grep", "-bash", "+ask_user", "-submit_plan", "+nosuchtool"] }));
      const cwd = server.project({ ".knightcode/settings.json": JSON.stringify({ defaultTools: ["+ls"] }) });
      await server.main.request("tool/settings/write", { name: "websearch", key: "enabled", value: true });

      const untrusted = await server.main.request("tool/list", { cwd });
      assert.deepEqual(
        untrusted.tools.map((t) => [t.name, t.source]),
        [
          ...SUBAGENT_TOOLS.map((name) => [name, "builtin"]).sort(),
          ["ask_user", "builtin"],
          ["bash", "builtin"],
          ["deploy", "extension"],
          ["edit", "builtin"],
          ["find", "builtin"],
          ["grep", "builtin"],
          ["ls", "builtin"],
          ["read", "extension"],
          ["submit_plan", "builtin"],
          ["websearch", "builtin"],
          ["write", "builtin"],
        ],
      );
      assert.equal(untrusted.tools.find((t) => t.name === "read")?.description, "Reads through the extension");
      assert.deepEqual(
        untrusted.defaultTools,
        ["read", "edit", "write", "grep", "ask_user", ...SUBAGENT_TOOLS, "websearch", "deploy"],
        "the global setting; a name no tool has is left out",
      );
      assert.equal(existsSync(marker), false, "no session_start ran");
      assert.deepEqual(await offeredTools(server, cwd), untrusted.defaultTools);

      await server.main.request("project/trust/set", { cwd, trusted: true });
      const trusted = await server.main.request("tool/list", { cwd });
      assert.deepEqual(
        trusted.defaultTools,
        ["read", "bash", "edit", "write", "ls", ...SUBAGENT_TOOLS, "websearch", "deploy"],
        "the project's setting replaces the global list",
      );
      assert.deepEqual(await offeredTools(server, cwd), trusted.defaultTools);

      for (const listing of [untrusted, trusted]) {
        const names = listing.tools.map((t) => t.name);
        assert.equal(new Set(names).size, names.length, "unique names");
        for (const name of listing.defaultTools) assert.ok(names.includes(name), `${name} is listed`);
      }
      await server.close();
    } finally {
      server.cleanup();
    }
  });

  test("a cwd that is not an existing absolute directory is invalidParams", async () => {
    const server = await startServer({ model });
    try {
      const file = scratchFile("plain.txt", "x");
      for (const cwd of [join(scratch.root, "missing"), file, "relative/dir"])
        await rejectsWith(server.main.request("tool/list", { cwd }), "invalidParams", /params\.cwd/);
      await server.close();
    } finally {
      server.cleanup();
    }
  });
});

describe("spec: tool/settings", () => {
  let server: TestServer;
  let toolsJson: string;
  before(async () => {
    server = await startServer({ model });
    toolsJson = join(server.agentDir, "tools.json");
  });
  after(async () => {
    await server.close();
  });

  test("read: websearch and the classifier gate at their defaults, and the models with credentials as classifiers", async () => {
    rmSync(toolsJson, { force: true });
    const read = await server.main.request("tool/settings/read", {});
    assert.deepEqual(read.tools, [
      { name: "websearch", enabled: false, settings: {} },
      { name: "classifiers.gate", enabled: false, settings: {} },
    ]);
    assert.deepEqual(read.classifiers, [
      { provider: "scripted", id: "scripted-model", name: "scripted-model" },
      { provider: "scripted", id: "scripted-reasoner", name: "scripted-reasoner" },
    ]);
  });

  test("write: a key is kept whole in a 0600 tools.json and read back masked to its last four characters; null restores the default", async () => {
    rmSync(toolsJson, { force: true });
    const write = (params: ClientRequestParams<"tool/settings/write">) => server.main.request("tool/settings/write", params);
    assert.deepEqual(await write({ name: "websearch", key: "provider", value: "brave" }), {});
    await write({ name: "websearch", key: "braveKey", value: SEARCH_KEY });
    await write({ name: "websearch", key: "enabled", value: true });
    await write({ name: "classifiers.gate", key: "model", value: "scripted/scripted-model" });
    assert.deepEqual(JSON.parse(readFileSync(toolsJson, "utf8")), {
      tools: { websearch: { provider: "brave", braveKey: SEARCH_KEY, enabled: true } },
      classifiers: { gate: { model: { provider: "scripted", id: "scripted-model" } } },
    });
    assert.equal(statSync(toolsJson).mode & 0o777, 0o600);
    const read = await server.main.request("tool/settings/read", {});
    assert.deepEqual(read.tools, [
      { name: "websearch", enabled: true, settings: { provider: "brave", braveKey: "••••1e9d" } },
      { name: "classifiers.gate", enabled: false, settings: { model: "scripted/scripted-model" } },
    ]);
    assert.ok(!JSON.stringify([...server.main.rawResponses.values()]).includes(SEARCH_KEY), "no answer carries the key");
    await write({ name: "websearch", key: "enabled", value: null });
    assert.equal((await server.main.request("tool/settings/read", {})).tools[0]!.enabled, false);
    assert.ok(!server.stderr.includes(SEARCH_KEY), "the key is in no log line");
  });

  test("an unknown tool, a malformed or unknown key, a value of the wrong type or a missing value is invalidParams, and tools.json stays as it was", async () => {
    rmSync(toolsJson, { force: true });
    const bad: [unknown, RegExp][] = [
      [{ name: "bash", key: "enabled", value: false }, /not managed in tools\.json.*defaultTools/],
      [{ name: "nosuch", key: "enabled", value: true }, /not managed/],
      [{ name: "websearch", key: "", value: "x" }, /empty/],
      [{ name: "websearch", key: "a.b", value: "x" }, /dotted/],
      [{ name: "websearch", key: "__proto__", value: "x" }, /forbidden/],
      [{ name: "websearch", key: "constructor", value: "x" }, /forbidden/],
      [{ name: "websearch", key: "prototype", value: "x" }, /forbidden/],
      [{ name: "websearch", key: "k".repeat(65), value: "x" }, /longer than 64/],
      [{ name: "websearch", key: "k".repeat(300), value: "x" }, /key/],
      [{ name: "websearch", key: "apikey", value: "x" }, /not a setting of websearch/],
      [{ name: "websearch", key: "enabled", value: "yes" }, /true, false or null/],
      [{ name: "websearch", key: "braveKey", value: true }, /a string or null/],
      [{ name: "websearch", key: "provider", value: "bing" }, /one of brave, tavily/],
      [{ name: "websearch", key: "enabled", value: 1 }, /value/],
      [{ name: "websearch", key: "enabled" }, /value/],
      [{ name: "classifiers.gate", key: "model", value: "nomodel" }, /<provider>\/<model id>/],
    ];
    for (const [params, pattern] of bad) {
      const answer = await server.main.rawRequest("tool/settings/write", params);
      assert.equal(answer.error?.code, "invalidParams", JSON.stringify(params));
      assert.match(answer.error!.message, pattern, JSON.stringify(params));
    }
    assert.equal(existsSync(toolsJson), false, "no refused write created the file");
  });

  test("a corrupt tools.json is refused without being overwritten (internal), and a new thread's classifier gate fails closed", async () => {
    const text = '{"classifiers": {"gate": {"enabled": true,}}}';
    writeFileSync(toolsJson, text);
    await rejectsWith(server.main.request("tool/settings/write", { name: "websearch", key: "enabled", value: true }), "internal", /never overwritten/);
    await rejectsWith(server.main.request("tool/settings/read", {}), "internal", /not valid JSON/);
    assert.equal(readFileSync(toolsJson, "utf8"), text);
    const { warnings } = await server.main.request("thread/start", { cwd: server.project() });
    assert.ok(
      warnings.some((w) => w.path === toolsJson && /classifier gate asks you about every call/.test(w.message)),
      JSON.stringify(warnings),
    );
    const listed = await server.main.request("tool/list", {});
    assert.equal(
      listed.tools.some((t) => t.name === "websearch"),
      false,
      "websearch stays off",
    );
    rmSync(toolsJson);
  });

  test("two server processes writing tools.json at once lose no update", async () => {
    rmSync(toolsJson, { force: true });
    const other = await startServer({ model, home: server.home });
    try {
      await Promise.all([
        server.main.request("tool/settings/write", { name: "websearch", key: "braveKey", value: "brave-key-from-one" }),
        other.main.request("tool/settings/write", { name: "websearch", key: "tavilyKey", value: "tavily-key-from-two" }),
        server.main.request("tool/settings/write", { name: "classifiers.gate", key: "instructions", value: "one" }),
        other.main.request("tool/settings/write", { name: "classifiers.gate", key: "timeoutMs", value: "1234" }),
        server.main.request("tool/settings/write", { name: "websearch", key: "provider", value: "tavily" }),
        other.main.request("tool/settings/write", { name: "websearch", key: "baseUrl", value: "http://127.0.0.1:9" }),
      ]);
      assert.deepEqual(JSON.parse(readFileSync(toolsJson, "utf8")), {
        tools: { websearch: { braveKey: "brave-key-from-one", tavilyKey: "tavily-key-from-two", provider: "tavily", baseUrl: "http://127.0.0.1:9" } },
        classifiers: { gate: { instructions: "one", timeoutMs: 1234 } },
      });
      other.transport.close();
      await other.waitForExit();
      other.assertNoSchemaViolations();
    } finally {
      other.cleanup();
      rmSync(toolsJson, { force: true });
    }
  });
});

describe("websearch in a thread", () => {
  let server: TestServer;
  let search: Server;
  let searchUrl: string;
  const searches: { url: string; headers: IncomingHttpHeaders }[] = [];
  before(async () => {
    search = createServer((req, res) => {
      searches.push({ url: req.url!, headers: req.headers });
      const query = new URL(req.url!, "http://x").searchParams.get("q");
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          web: { results: [{ title: `About ${query}`, url: "https://example.org/streams", description: "Streams <strong>explained</strong>." }] },
        }),
      );
    });
    await new Promise<void>((resolve) => search.listen(0, "127.0.0.1", resolve));
    searchUrl = `http://127.0.0.1:${(search.address() as AddressInfo).port}`;
    server = await startServer({ model });
  });
  after(async () => {
    await server.close();
    await new Promise<void>((resolve) => search.close(() => resolve()));
  });

  const write = (key: string, value: string | boolean | null) => server.main.request("tool/settings/write", { name: "websearch", key, value });

  /** A turn in which the model calls websearch, then says "done"; the call's item and what the model got back. */
  async function searchTurn(threadId: string, callId: string) {
    model.enqueue({ toolCalls: [{ id: callId, name: "websearch", arguments: { query: "node streams" } }] }, { text: "done" });
    const before = model.requests.length;
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId, text: "search" });
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === threadId, { since: mark, timeoutMs: 20_000 });
    const item = server.main
      .notificationsOf("item/completed")
      .map((p) => p.item as { id: string; status?: string; output?: unknown })
      .find((i) => i.id === callId);
    const followUp = model.requests[before + 1];
    const result = ((followUp?.body.messages ?? []) as { role: string; tool_call_id?: string; content: unknown }[]).find(
      (m) => m.role === "tool" && m.tool_call_id === callId,
    );
    return { item, result: JSON.stringify(result?.content ?? "") };
  }

  test("switched on with no key: a tool error saying how to set one, and no search is made", async () => {
    await write("enabled", true);
    await write("baseUrl", searchUrl);
    const { thread } = await server.main.request("thread/start", {
      cwd: server.project(),
      approvalMode: "fullAccess",
      model: { provider: "scripted", id: "scripted-model" },
    });
    const { item, result } = await searchTurn(thread.id, "call_nokey");
    assert.equal(item?.status, "failed");
    assert.match(result, /websearch has no API key for brave; set it with tool\/settings\/write/);
    assert.equal(searches.length, 0);
  });

  test("it asks in ask mode like other non-read tools; accepted, it searches with the key, which appears in no output, log, notification or session file", async () => {
    await write("braveKey", SEARCH_KEY);
    const { thread } = await server.main.request("thread/start", {
      cwd: server.project(),
      approvalMode: "ask",
      model: { provider: "scripted", id: "scripted-model" },
    });
    const asked: ServerRequestParams<"item/toolCall/requestApproval">[] = [];
    const off = server.main.client.onRequest("item/toolCall/requestApproval", (params) => {
      asked.push(params);
      return { decision: "accept" };
    });
    try {
      const { item, result } = await searchTurn(thread.id, "call_search");
      assert.deepEqual(
        asked.map((a) => [a.tool, a.decisions]),
        [["websearch", ["accept", "acceptForSession", "decline", "cancel"]]],
      );
      assert.equal(item?.status, "completed");
      assert.match(result, /1\. About node streams\\n {3}https:\/\/example\.org\/streams\\n {3}Streams explained\./);
      assert.equal(searches.at(-1)!.headers["x-subscription-token"], SEARCH_KEY);
    } finally {
      off();
    }
    const places = {
      notifications: JSON.stringify(server.main.notifications),
      "model requests": JSON.stringify(model.requests.map((r) => r.body)),
      stderr: server.stderr,
      "session file": readFileSync(thread.sessionFile!, "utf8"),
      "tool/settings/read": JSON.stringify(await server.main.request("tool/settings/read", {})),
    };
    for (const [where, text] of Object.entries(places)) assert.ok(!text.includes(SEARCH_KEY), `the key is not in the ${where}`);
  });
});
