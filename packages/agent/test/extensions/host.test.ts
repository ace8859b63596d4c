import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { ExtensionHost } from "../../src/extensions/host.js";
import type { ExtensionHostDeps } from "../../src/extensions/host-deps.js";
import { extensionRunHooks, runInputHooks } from "../../src/extensions/session-hooks.js";
import { runEnv, type RunEnv } from "../support/env.js";
import { testHost } from "../support/host.js";
import { ManualClock } from "../support/hook-clock.js";
import { waitUntil } from "@knightcode/testkit";

let env: RunEnv;
let dir: string;
let n = 0;
before(async () => {
  env = await runEnv();
  dir = join(env.dir, "extensions");
  mkdirSync(dir, { recursive: true });
});
after(() => env.close());

/** Writes an extension file and returns its path. */
function extension(source: string, name = `ext${n++}.ts`): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

function makeHost(overrides: Partial<ExtensionHostDeps> = {}) {
  const entries: { customType: string; data: unknown }[] = [];
  const sent: unknown[] = [];
  const { host, warnings } = testHost(env, {
    appendEntry: (customType, data) => entries.push({ customType, data }),
    sendMessage: (message, options) => sent.push({ message, options }),
    ...overrides,
  });
  return { host, warnings, entries, sent };
}

/** A session whose tools and hooks come from the host, as a thread wires them. */
function sessionWith(host: ExtensionHost) {
  const hooks = extensionRunHooks(host);
  return env.session({ tools: host.tools(), beforeToolCall: hooks.beforeToolCall, afterToolCall: hooks.afterToolCall, hooks: hooks.hooks });
}

describe("loading", () => {
  test("a TypeScript extension registers a tool that the model calls", async () => {
    const path = extension(`
      import type { ExtensionAPI } from "whatever-types-are-erased";
      interface Args { who: string }
      export default function (kc: ExtensionAPI) {
        kc.registerTool({
          name: "greet",
          description: "Greets someone",
          parameters: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
          async execute(_id: string, params: Args) {
            return { content: [{ type: "text", text: "hello " + params.who }], details: { greeted: params.who } };
          },
        });
      }
    `);
    const { host, warnings } = makeHost();
    assert.deepEqual(await host.load([{ path }]), []);
    assert.deepEqual(warnings, []);
    const { session } = await sessionWith(host);
    env.model.enqueue({ toolCalls: [{ name: "greet", arguments: { who: "ada" } }] }, { text: "done" });
    const before = env.model.requests.length;
    assert.equal((await session.runTurn({ text: "greet ada" })).status, "completed");
    assert.ok(env.model.requests[before]!.body.tools.some((t: { function: { name: string } }) => t.function.name === "greet"));
    assert.match(JSON.stringify(env.model.requests[before + 1]!.body.messages), /hello ada/);
  });

  test("a tool whose parameters are a TypeBox schema, imported from our installation", async () => {
    const path = extension(`
      import { Type } from "typebox";
      export default function (kc: any) {
        kc.registerTool({
          name: "add",
          description: "Adds two numbers",
          parameters: Type.Object({ a: Type.Number(), b: Type.Number() }),
          async execute(_id: string, p: { a: number; b: number }) { return { content: [{ type: "text", text: String(p.a + p.b) }], details: {} }; },
        });
      }
    `);
    const { host } = makeHost();
    assert.deepEqual(await host.load([{ path }]), []);
    const { session } = await sessionWith(host);
    env.model.enqueue({ toolCalls: [{ name: "add", arguments: { a: 2, b: 40 } }] }, { text: "42" });
    const before = env.model.requests.length;
    await session.runTurn({ text: "add" });
    assert.match(JSON.stringify(env.model.requests[before + 1]!.body.messages), /"42"|:\s*"42"|42/);
    const tool = env.model.requests[before]!.body.tools.find((t: { function: { name: string } }) => t.function.name === "add");
    assert.equal(tool.function.parameters.properties.a.type, "number");
  });

  test("plain JavaScript under a .ts name loads, and a folder's index.ts too", async () => {
    const js = extension(`module.exports = function (kc) { kc.registerCommand("hi", { description: "says hi", handler: () => {} }); };`);
    mkdirSync(join(dir, "folder-ext"), { recursive: true });
    const index = join(dir, "folder-ext", "index.ts");
    writeFileSync(index, `export default (kc: any) => kc.registerCommand("folder", { handler: () => {} });`);
    const { host } = makeHost();
    assert.deepEqual(await host.load([{ path: js }, { path: index }]), []);
    assert.deepEqual(
      host.commands().map((c) => c.name),
      ["folder", "hi"],
    );
  });

  test("a throw at load, a missing default export and a hanging factory are warnings; the rest loads", async () => {
    const throws = extension(`export default function () { throw new Error("boom at load"); }`);
    const noDefault = extension(`export const x = 1;`);
    const syntax = extension(`export default function ( {`);
    const hangs = extension(`export default function () { return new Promise(() => {}); }`);
    const good = extension(`export default (kc: any) => kc.registerCommand("good", { handler: () => {} });`);
    const { host } = makeHost({ loadTimeoutMs: 200 });
    const warnings = await host.load([{ path: throws }, { path: noDefault }, { path: syntax }, { path: hangs }, { path: good }]);
    assert.deepEqual(
      warnings.map((w) => w.path),
      [throws, noDefault, syntax, hangs],
    );
    assert.match(warnings[0]!.message, /boom at load/);
    assert.match(warnings[1]!.message, /no default export/);
    assert.match(warnings[3]!.message, /within 200 ms/);
    assert.ok(warnings.every((w) => w.source === "extension"));
    assert.deepEqual(
      host.commands().map((c) => c.name),
      ["good"],
    );
  });

  test("each thread gets its own instance of an extension", async () => {
    const path = extension(`
      let count = 0;
      export default function (kc: any) {
        count++;
        kc.registerCommand("count", { description: String(count), handler: () => {} });
      }
    `);
    const a = makeHost();
    const b = makeHost();
    await a.host.load([{ path }]);
    await b.host.load([{ path }]);
    assert.equal(a.host.commands()[0]!.description, "1");
    assert.equal(b.host.commands()[0]!.description, "1", "module state is not shared between threads");
  });
});

describe("events", () => {
  test("tool_call can block: the tool never runs and the reason reaches the model", async () => {
    const marker = join(env.dir, "ran.txt");
    const path = extension(`
      import { writeFileSync } from "node:fs";
      export default function (kc: any) {
        kc.registerTool({ name: "danger", description: "d", parameters: { type: "object", properties: {} },
          async execute() { writeFileSync(${JSON.stringify(marker)}, "ran"); return { content: [{ type: "text", text: "ran" }], details: {} }; } });
        kc.on("tool_call", (event: any) => event.toolName === "danger" ? { block: true, reason: "not on a Friday" } : undefined);
      }
    `);
    const { host } = makeHost();
    await host.load([{ path }]);
    const { session } = await sessionWith(host);
    env.model.enqueue({ toolCalls: [{ name: "danger", arguments: {} }] }, { text: "ok" });
    const before = env.model.requests.length;
    await session.runTurn({ text: "do it" });
    const { existsSync } = await import("node:fs");
    assert.equal(existsSync(marker), false);
    assert.match(JSON.stringify(env.model.requests[before + 1]!.body.messages), /not on a Friday/);
  });

  test("tool_call may change the input; tool_result may patch the result", async () => {
    const path = extension(`
      export default function (kc: any) {
        kc.registerTool({ name: "echo", description: "e", parameters: { type: "object", properties: { text: { type: "string" } } },
          async execute(_id: string, params: any) { return { content: [{ type: "text", text: "echo " + params.text }], details: {} }; } });
        kc.on("tool_call", (event: any) => { event.input.text = event.input.text.toUpperCase(); });
        kc.on("tool_result", (event: any) => ({ content: [{ type: "text", text: event.content[0].text + " (checked)" }] }));
      }
    `);
    const { host } = makeHost();
    await host.load([{ path }]);
    const { session } = await sessionWith(host);
    env.model.enqueue({ toolCalls: [{ name: "echo", arguments: { text: "quiet" } }] }, { text: "ok" });
    const before = env.model.requests.length;
    await session.runTurn({ text: "x" });
    assert.match(JSON.stringify(env.model.requests[before + 1]!.body.messages), /echo QUIET \(checked\)/);
  });

  test("a throwing handler and a throwing tool leave the thread working", async () => {
    const path = extension(`
      export default function (kc: any) {
        kc.on("message_end", () => { throw new Error("handler exploded"); });
        kc.on("agent_start", async () => { await Promise.reject(new Error("async explosion")); });
        kc.registerTool({ name: "broken", description: "b", parameters: { type: "object", properties: {} },
          async execute() { throw new Error("tool exploded"); } });
      }
    `);
    const { host, warnings } = makeHost();
    await host.load([{ path }]);
    const { session, events } = await sessionWith(host);
    env.model.enqueue({ toolCalls: [{ name: "broken", arguments: {} }] }, { text: "still here" });
    const before = env.model.requests.length;
    const result = await session.runTurn({ text: "x" });
    assert.equal(result.status, "completed");
    const toolEnd = events.find((e) => e.type === "tool_end");
    assert.ok(toolEnd && toolEnd.type === "tool_end" && toolEnd.isError);
    assert.match(JSON.stringify(env.model.requests[before + 1]!.body.messages), /tool exploded/);
    assert.ok(warnings.some((w) => /handler exploded/.test(w.message) && w.path === path));
    assert.ok(warnings.some((w) => /async explosion/.test(w.message)));
  });

  test("before_agent_start replaces the system prompt for the turn and adds a message", async () => {
    const path = extension(`
      export default function (kc: any) {
        kc.on("before_agent_start", (event: any) => ({
          systemPrompt: event.systemPrompt + "\\nAlways answer in French.",
          message: { customType: "reminder", content: "Remember the style guide." },
        }));
      }
    `);
    const { host } = makeHost();
    await host.load([{ path }]);
    const { session, transcript } = await sessionWith(host);
    env.model.enqueue({ text: "oui" });
    await session.runTurn({ text: "hello" });
    const body = env.model.requests.at(-1)!.body;
    assert.match(body.messages[0].content, /Always answer in French/);
    assert.match(JSON.stringify(body.messages), /Remember the style guide/);
    assert.equal(transcript.ofType("custom_message").length, 1);
  });

  test("a hanging handler does not hold an interrupt", async () => {
    const path = extension(`
      export default function (kc: any) {
        kc.on("tool_call", () => new Promise(() => {}));
        kc.registerTool({ name: "t", description: "t", parameters: { type: "object", properties: {} },
          async execute() { return { content: [{ type: "text", text: "x" }], details: {} }; } });
      }
    `);
    let signal: AbortSignal | undefined;
    const { host } = makeHost({ turnSignal: () => signal });
    await host.load([{ path }]);
    const { session, events } = await sessionWith(host);
    env.model.enqueue({ toolCalls: [{ name: "t", arguments: {} }] });
    const running = session.runTurn({ text: "x" });
    await waitUntil("the tool call to start", () => events.some((e) => e.type === "tool_start"));
    signal = session.runningTurn!.signal;
    const started = Date.now();
    session.abort();
    assert.equal((await running).status, "interrupted");
    assert.ok(Date.now() - started < 1000);
  });
});

describe("the time limit and failing handlers", () => {
  /** Two tools that leave a mark when they run, and a tool_call check that throws for one and never answers for the other. */
  function gatedTools(marks: string) {
    return extension(
      `
      import { appendFileSync } from "node:fs";
      export default function (kc: any) {
        for (const name of ["checked_throw", "checked_hang"]) {
          kc.registerTool({ name, description: name, parameters: { type: "object", properties: {} },
            async execute() { appendFileSync(${JSON.stringify(marks)}, name + "\\n"); return { content: [{ type: "text", text: "ran" }], details: {} }; } });
        }
        kc.on("tool_call", (event: any) => {
          if (event.toolName === "checked_throw") throw new Error("check exploded");
          return new Promise(() => {});
        });
      }
    `,
      "gate.ts",
    );
  }

  test("a tool_call handler that throws or runs past the limit blocks its call; the model reads why", async () => {
    const marks = join(env.dir, `marks-${n++}.txt`);
    const path = gatedTools(marks);
    const { host, warnings } = makeHost({ hookTimeoutMs: () => 100 });
    await host.load([{ path }]);
    const { session, events } = await sessionWith(host);
    env.model.enqueue(
      {
        toolCalls: [
          { name: "checked_throw", arguments: {} },
          { name: "checked_hang", arguments: {} },
        ],
      },
      { text: "understood" },
    );
    const before = env.model.requests.length;
    assert.equal((await session.runTurn({ text: "run both" })).status, "completed");
    const { existsSync } = await import("node:fs");
    assert.equal(existsSync(marks), false, "neither tool ran");
    const results = env.model.requests[before + 1]!.body.messages.filter((m: { role: string }) => m.role === "tool");
    assert.deepEqual(
      results.map((m: { content: string }) => m.content),
      [
        "Blocked: the gate extension's check of this call failed (check exploded), so the call did not run.",
        "Blocked: the gate extension's check of this call did not finish within 100 ms, so the call did not run.",
      ],
    );
    assert.ok(events.filter((e) => e.type === "tool_end").every((e) => e.type === "tool_end" && e.isError));
    assert.deepEqual(
      warnings.map((w) => [w.message, w.path]),
      [
        ["tool_call handler failed: check exploded", path],
        ["tool_call handler of gate did not finish within 100 ms; it was abandoned", path],
      ],
    );
  });

  test("a message_end handler that never finishes holds the turn no longer than the limit, and the handlers after it still run", async () => {
    const stuck = extension(`export default (kc: any) => kc.on("message_end", () => new Promise(() => {}));`, "stuck.ts");
    const watcher = extension(`export default (kc: any) => kc.on("message_end", (event: any) => kc.appendEntry("seen", event.message.role));`, "watcher.ts");
    const { host, warnings, entries } = makeHost({ hookTimeoutMs: () => 50 });
    await host.load([{ path: stuck }, { path: watcher }]);
    const { session } = await sessionWith(host);
    env.model.enqueue({ text: "hello" });
    assert.equal((await session.runTurn({ text: "hi" })).status, "completed");
    assert.deepEqual(entries, [
      { customType: "seen", data: "user" },
      { customType: "seen", data: "assistant" },
    ]);
    assert.deepEqual(
      warnings.map((w) => w.message),
      Array(2).fill("message_end handler of stuck did not finish within 50 ms; it was abandoned"),
    );
  });

  test("the limit is read at each event, so a settings change applies to the next one", async () => {
    const path = extension(`export default (kc: any) => kc.on("turn_start", () => new Promise(() => {}));`, "slow-start.ts");
    let limit = 20;
    const { host, warnings } = makeHost({ hookTimeoutMs: () => limit });
    await host.load([{ path }]);
    await host.emit("turn_start", { turnIndex: 0 });
    limit = 40;
    await host.emit("turn_start", { turnIndex: 1 });
    assert.deepEqual(
      warnings.map((w) => w.message.match(/within (\d+) ms/)?.[1]),
      ["20", "40"],
    );
  });

  test("handlers that finish in time count, and no timer of the limit outlives its handler", async () => {
    const marks = join(env.dir, `marks-${n++}.txt`);
    const path = extension(`
      import { appendFileSync } from "node:fs";
      export default function (kc: any) {
        kc.registerTool({ name: "guarded", description: "g", parameters: { type: "object", properties: {} },
          async execute() { appendFileSync(${JSON.stringify(marks)}, "ran"); return { content: [{ type: "text", text: "ran" }], details: {} }; } });
        for (const event of ["agent_start", "turn_start", "message_start", "message_end", "tool_result", "turn_end", "agent_end", "before_agent_start"]) {
          kc.on(event, async () => { await Promise.resolve(); });
        }
        kc.on("tool_call", async () => { await Promise.resolve(); return { block: true, reason: "checked and refused" }; });
      }
    `);
    const clock = new ManualClock();
    const { host, warnings } = makeHost({ hookClock: clock });
    await host.load([{ path }]);
    const { session } = await sessionWith(host);
    env.model.enqueue({ toolCalls: [{ name: "guarded", arguments: {} }] }, { text: "fine" });
    const before = env.model.requests.length;
    assert.equal((await session.runTurn({ text: "go" })).status, "completed");
    assert.match(JSON.stringify(env.model.requests[before + 1]!.body.messages), /checked and refused/);
    const { existsSync } = await import("node:fs");
    assert.equal(existsSync(marks), false);
    assert.deepEqual(warnings, []);
    assert.equal(clock.timers.size, 0);
  });
});

describe("the API", () => {
  test("commands run; a throwing command is a warning", async () => {
    const path = extension(`
      export default function (kc: any) {
        kc.registerCommand("note", { handler: (args: string) => { kc.appendEntry("notes", { args }); } });
        kc.registerCommand("fail", { handler: () => { throw new Error("command broke"); } });
      }
    `);
    const { host, entries, warnings } = makeHost();
    await host.load([{ path }]);
    assert.deepEqual(await host.runCommand("note", "buy milk"), {});
    assert.deepEqual(entries, [{ customType: "notes", data: { args: "buy milk" } }]);
    assert.deepEqual(await host.runCommand("fail", ""), {});
    assert.match(warnings[0]!.message, /command \/fail failed: command broke/);
    assert.equal(await host.runCommand("unknown", ""), undefined);
  });

  test("registerProvider adds models to the registry until the extension is disposed", async () => {
    const path = extension(`
      export default function (kc: any) {
        kc.registerProvider("ext-llm", { baseUrl: "http://127.0.0.1:9/v1", apiKey: "k", models: [{ id: "m1", reasoning: true }] });
      }
    `);
    const { host } = makeHost();
    await host.load([{ path }]);
    const found = await env.registry.find({ provider: "ext-llm", id: "m1" });
    assert.equal(found?.reasoning, true);
    assert.ok((await env.registry.list()).some((m) => m.provider === "ext-llm" && m.source === "extension"));
    await host.dispose("unload");
    assert.equal(await env.registry.find({ provider: "ext-llm", id: "m1" }), undefined);
  });

  test("sendMessage goes to the thread; exec runs a program with an argument array", async () => {
    const path = extension(`
      export default function (kc: any) {
        kc.registerCommand("run", { handler: async () => {
          const result = await kc.exec("sh", ["-c", "echo $0-out; echo err >&2; exit 3", "arg"]);
          kc.sendMessage({ customType: "exec", content: JSON.stringify(result) }, { triggerTurn: true });
        } });
      }
    `);
    const { host, sent } = makeHost();
    await host.load([{ path }]);
    await host.runCommand("run", "");
    const [{ message, options }] = sent as [{ message: { content: string }; options: unknown }];
    const result = JSON.parse(message.content);
    assert.deepEqual([result.stdout, result.stderr, result.code], ["arg-out\n", "err\n", 3]);
    assert.deepEqual(options, { triggerTurn: true });
  });

  test("dispose sends session_shutdown once and forgets the extensions", async () => {
    const marker = join(env.dir, `shutdown-${n}.txt`);
    const path = extension(`
      import { appendFileSync } from "node:fs";
      export default function (kc: any) {
        kc.on("session_shutdown", (event: any) => appendFileSync(${JSON.stringify(marker)}, event.reason + "\\n"));
        kc.registerCommand("x", { handler: () => {} });
      }
    `);
    const { host } = makeHost();
    await host.load([{ path }]);
    await host.dispose("reload");
    await host.dispose("reload");
    const { readFileSync } = await import("node:fs");
    assert.equal(readFileSync(marker, "utf8"), "reload\n");
    assert.deepEqual(host.commands(), []);
    assert.deepEqual(host.tools(), []);
  });

  test("invalid registrations fail the load with a clear warning", async () => {
    const path = extension(`export default (kc: any) => kc.registerTool({ name: "bad name!", description: "x", parameters: {}, execute() {} });`);
    const { host } = makeHost();
    const warnings = await host.load([{ path }]);
    assert.match(warnings[0]!.message, /registerTool needs a name/);
  });
});

describe("input", () => {
  test("handlers transform input in order, and a handled input stops there", async () => {
    const path = extension(`
      export default function (kc: any) {
        kc.on("input", (event: any) => ({ action: "transform", text: event.text.replace("colour", "color") }));
        kc.on("input", (event: any) => event.text.startsWith("!") ? { action: "handled" } : undefined);
        kc.on("input", (event: any) => ({ action: "transform", text: event.text + " please" }));
      }
    `);
    const { host } = makeHost();
    await host.load([{ path }]);
    assert.deepEqual(await runInputHooks(host, { text: "pick a colour", images: [], source: "user" }), {
      action: "continue",
      text: "pick a color please",
      images: [],
    });
    assert.deepEqual(await runInputHooks(host, { text: "!shell", images: [], source: "user" }), { action: "handled" });
  });
});
