import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import type { Item, ServerNotificationParams, ThreadUi } from "@knightcode/app-server-protocol";
import type { AppServerError } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, waitUntil, type TestClient, type TestServer } from "../support/harness.js";
import { Random } from "../support/random.js";
import { isValidViewJson, randomView } from "../support/view-trees.js";

// spec: Dialogs and extension UI; ui/event; Limits and client reference.
// Two real extensions loaded with -e show statuses, widgets, a title and a
// working message, from session_start, a command and a tool, and listen to
// view events; a third sets random views.

const TREES = fileURLToPath(new URL("../support/view-trees.js", import.meta.url));
const RANDOM = fileURLToPath(new URL("../support/random.js", import.meta.url));

const PANEL_VIEW = {
  type: "stack",
  direction: "vertical",
  children: [
    { type: "text", text: "Checks" },
    { type: "toggle", id: "verbose", label: "Verbose", value: false },
    { type: "select", id: "level", options: ["low", "high"], value: "low", label: "Level" },
    {
      type: "list",
      children: [
        { type: "button", id: "run", label: "Run" },
        { type: "button", id: "explode", label: "Fail" },
        { type: "button", id: "hang", label: "Hang" },
      ],
    },
    { type: "textField", id: "name", placeholder: "name" },
  ],
};

/** Shows everything, keeps the limits busy, and records the view events it gets as a status. */
const PANEL = `
export default function (kc: any) {
  const view = ${JSON.stringify(PANEL_VIEW)};
  kc.on("session_start", (_e: any, ctx: any) => {
    ctx.ui.onViewEvent((event: any) => ctx.ui.setStatus("seen-panel", JSON.stringify(event)));
    ctx.ui.setStatus("b-status", "\\u001b[1mbold\\u001b[0m two\\nlines");
    ctx.ui.setStatus("a-status", "x".repeat(150) + "\u{1F600}".repeat(100));
    ctx.ui.setTitle("Title \\u001b[32mgreen\\u001b[0m");
    ctx.ui.setWorkingMessage("working\\non it");
    ctx.ui.setWidget("lines", ["  \\u001b[31mindented\\u001b[0m  ", "two\\nparts"], { placement: "belowEditor" });
    ctx.ui.setWidget("panel", view);
    ctx.ui.setWidget("second", { type: "text", text: "second" }, { placement: "aboveEditor" });
    // Refused while the thread loads: each key warns once, in the start result.
    for (let i = 0; i < 2; i++) {
      ctx.ui.setStatus("", "empty key");
      ctx.ui.setStatus("k".repeat(129), "long key");
      ctx.ui.setWidget("bad-view", { type: "iframe", src: "https://example.com" });
      ctx.ui.setWidget("big", ["x".repeat(17 * 1024)]);
      ctx.ui.setWidget("deep", ${JSON.stringify(nested(9))});
      ctx.ui.setWidget("dup", { type: "list", children: [{ type: "button", id: "a", label: "1" }, { type: "button", id: "a", label: "2" }] });
    }
    // Terminal-only: nothing happens, one log line per method.
    for (let i = 0; i < 3; i++) {
      ctx.ui.custom(() => null);
      ctx.ui.setHeader(() => null);
      ctx.ui.setFooter(() => null);
      ctx.ui.setEditorText("text");
      ctx.ui.getEditorText();
      ctx.ui.pasteToEditor("text");
      ctx.ui.setWidget("factory", () => ({ render: () => [] }));
    }
  });
  kc.registerCommand("move", { handler: async (_args: string, ctx: any) => {
    ctx.ui.setWidget("panel", view);
    ctx.ui.setWorkingVisible(false);
    ctx.ui.setTitle(undefined);
    ctx.ui.setStatus("b-status", undefined);
    ctx.ui.setWidget("second", undefined);
  } });
  kc.registerCommand("limits", { handler: async (_args: string, ctx: any) => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 52; i++) ctx.ui.setStatus("s" + String(i).padStart(2, "0"), "status " + i);
      for (let i = 0; i < 16; i++) ctx.ui.setWidget("w" + String(i).padStart(2, "0"), ["widget " + i]);
    }
  } });
  kc.registerTool({
    name: "show",
    description: "Shows a result as a view",
    parameters: { type: "object", properties: { big: { type: "boolean" } } },
    async execute(_id: string, params: any, _signal: any, _update: any, ctx: any) {
      ctx.ui.setWidget("from-tool", ["tool ran"], { placement: "belowEditor" });
      if (!params.big) {
        kc.sendMessage({ customType: "note", content: "a note", display: true, details: { view: { type: "text", text: "note view" } } });
        kc.sendMessage({ customType: "note", content: "bad note", display: true, details: { view: { type: "marquee", text: "no" } } });
      }
      const view = params.big
        ? { type: "text", text: "y".repeat(70 * 1024) }
        : { type: "stack", children: [{ type: "text", text: "result" }, { type: "button", id: "again", label: "Again" }] };
      return { content: [{ type: "text", text: "shown" }], details: { view } };
    },
  });
}
`;

/** A second extension listening to the same events: one throws on "explode", one never settles on "hang". */
const WATCHER = `
export default function (kc: any) {
  kc.on("session_start", (_e: any, ctx: any) => {
    ctx.ui.onViewEvent(async (event: any) => {
      if (event.id === "explode") throw new Error("watcher exploded");
      if (event.id === "hang") return new Promise(() => undefined);
      ctx.ui.setStatus("seen-watcher", JSON.stringify(event));
    });
  });
}
`;

/** Changes its statuses and widgets every few milliseconds between /tick and /stop. */
const TICKER = `
export default function (kc: any) {
  let timer: any;
  const stop = () => clearInterval(timer);
  kc.registerCommand("tick", { handler: async (_args: string, ctx: any) => {
    let n = 0;
    timer = setInterval(() => {
      n++;
      ctx.ui.setStatus("tick", String(n));
      ctx.ui.setWidget("tick", ["tick " + n], { placement: n % 2 ? "aboveEditor" : "belowEditor" });
      if (n % 3 === 0) ctx.ui.setWidget("tock", undefined);
      else ctx.ui.setWidget("tock", { type: "text", text: "tock " + n });
    }, 2);
  } });
  kc.registerCommand("stop", { handler: async (_args: string, ctx: any) => {
    stop();
    ctx.ui.setStatus("tick", "stopped");
  } });
  kc.on("session_shutdown", stop);
}
`;

/** Sets random views, hostile ones included, from a seed: /fuzz <seed>. */
const FUZZER = `
import { randomView } from ${JSON.stringify(TREES)};
import { Random } from ${JSON.stringify(RANDOM)};
export default function (kc: any) {
  kc.registerCommand("fuzz", { handler: async (args: string, ctx: any) => {
    const random = new Random(Number(args));
    for (let i = 0; i < 400; i++) ctx.ui.setWidget("f" + (i % 8), randomView(random, { hostile: true, maxDepth: 10 }));
  } });
}
`;

function nested(containers: number): unknown {
  let node: unknown = { type: "text", text: "bottom" };
  for (let i = 0; i < containers; i++) node = { type: "list", children: [node] };
  return node;
}

let model: ScriptedModelServer;
let server: TestServer;
let extensionDir: string;
let paths: { panel: string; watcher: string; fuzzer: string; ticker: string };
let ws: TestClient;
const TOKEN = "extension-ui-test-token-0123456789abcdef";

before(async () => {
  model = await ScriptedModelServer.start();
  extensionDir = mkdtempSync(join(tmpdir(), "kc-ui-ext-"));
  paths = {
    panel: join(extensionDir, "panel.ts"),
    watcher: join(extensionDir, "watcher.ts"),
    fuzzer: join(extensionDir, "fuzzer.ts"),
    ticker: join(extensionDir, "ticker.ts"),
  };
  writeFileSync(paths.panel, PANEL);
  writeFileSync(paths.watcher, WATCHER);
  writeFileSync(paths.fuzzer, FUZZER);
  writeFileSync(paths.ticker, TICKER);
  const extensions = Object.values(paths).flatMap((path) => ["-e", path]);
  server = await startServer({ model, args: [...extensions, "--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN] });
  const url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  ws = await server.connectWebSocket(url, TOKEN);
  await ws.initialize();
  // A view handler that never settles is abandoned after this long.
  writeFileSync(join(server.agentDir, "settings.json"), JSON.stringify({ extensionHookTimeoutMs: 400 }));
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
  rmSync(extensionDir, { recursive: true, force: true });
});

type UiNotification = { method: "ui/state" | "ui/widget" | "warning"; params: Record<string, unknown> };

function uiSince(client: TestClient, threadId: string, mark: number): UiNotification[] {
  return client.notifications
    .slice(mark)
    .filter(
      (n) => (n.method === "ui/state" || n.method === "ui/widget" || n.method === "warning") && (n.params as { threadId?: string }).threadId === threadId,
    ) as UiNotification[];
}

/** What a client shows: the result's ui with the notifications applied, as the spec says to. */
function applied(ui: ThreadUi, notifications: UiNotification[]): ThreadUi {
  let state: ThreadUi = structuredClone(ui);
  for (const { method, params } of notifications) {
    if (method === "ui/state") {
      const { threadId: _t, ...rest } = params as ServerNotificationParams<"ui/state">;
      state = { ...rest, widgets: state.widgets };
    } else if (method === "ui/widget") {
      const { threadId: _t, ...widget } = params as ServerNotificationParams<"ui/widget">;
      const widgets = state.widgets.filter((w) => w.key !== widget.key);
      if (widget.placement) widgets.push(widget as ThreadUi["widgets"][number]);
      state.widgets = [...widgets.filter((w) => w.placement === "aboveEditor"), ...widgets.filter((w) => w.placement === "belowEditor")];
    }
  }
  return state;
}

async function startThread(): Promise<{ threadId: string; ui: ThreadUi; warnings: { message: string; path?: string }[]; mark: number }> {
  const cwd = server.project();
  const started = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess" });
  return { threadId: started.thread.id, ui: started.ui, warnings: started.warnings, mark: server.main.notifications.length };
}

async function command(threadId: string, text: string): Promise<void> {
  const answer = await server.main.request("turn/start", { threadId, text });
  assert.equal(answer.status, "handled");
}

const SESSION_UI: ThreadUi = {
  statuses: [
    { key: "a-status", text: "x".repeat(150) + "\u{1F600}".repeat(50) },
    { key: "b-status", text: "bold two lines" },
  ],
  title: "Title green",
  workingMessage: "working on it",
  workingVisible: true,
  widgets: [
    { key: "panel", placement: "aboveEditor", view: PANEL_VIEW as never },
    { key: "second", placement: "aboveEditor", view: { type: "text", text: "second" } },
    { key: "lines", placement: "belowEditor", lines: ["  indented  ", "two parts"] },
  ],
};

describe("spec: Dialogs and extension UI", () => {
  test("thread/start's ui is what session_start showed: ANSI stripped, one line, 200 code points, widgets above before below", async () => {
    const { ui } = await startThread();
    assert.deepEqual(ui, SESSION_UI);
  });

  test("refusals while the thread loads are the start result's warnings, one per key, and no warning notification", async () => {
    const { threadId, warnings } = await startThread();
    const refusals = warnings.filter((w) => /refused/.test(w.message)).map((w) => w.message);
    const keyOf = (message: string) => JSON.parse(message.match(/^(?:status|widget) ("[^"]*")/)![1]!) as string;
    assert.deepEqual(refusals.map(keyOf).sort(), ["", "bad-view", "big", "deep", "dup", "k".repeat(128)].sort(), refusals.join("\n"));
    const find = (key: string) => refusals.find((m) => keyOf(m) === key)!;
    assert.match(find("bad-view"), /view is invalid: the view has an unknown type "iframe"/);
    assert.match(find("deep"), /more than 8 deep/);
    assert.match(find("dup"), /repeats the control id "a"/);
    assert.match(find("big"), /16384 bytes/);
    assert.match(find(""), /1 to 128 characters/);
    // Nothing was sent while nobody was subscribed; a later look finds no warning either.
    await server.main.request("thread/resume", { threadId });
    assert.equal(server.main.notifications.filter((n) => n.method === "warning" && (n.params as { threadId: string }).threadId === threadId).length, 0);
  });

  test("a command's changes arrive as ui/state and ui/widget in order; a widget set again moves to the end of its placement; resume and fork answer the ui", async () => {
    const { threadId, ui, mark } = await startThread();
    model.enqueue({ toolCalls: [{ id: "show-1", name: "show", arguments: {} }] }, { text: "done" });
    await command(threadId, "/move");
    const seen = uiSince(server.main, threadId, mark).map((n) => [n.method, n.params.key ?? n.params.workingVisible ?? ""]);
    assert.deepEqual(seen, [
      ["ui/widget", "panel"],
      ["ui/state", false],
      ["ui/state", false],
      ["ui/state", false],
      ["ui/widget", "second"],
    ]);
    const expected: ThreadUi = {
      statuses: [SESSION_UI.statuses[0]!],
      workingMessage: "working on it",
      workingVisible: false,
      widgets: [SESSION_UI.widgets[0]!, SESSION_UI.widgets[2]!],
    };
    assert.deepEqual(applied(ui, uiSince(server.main, threadId, mark)), expected);
    const resumed = await server.main.request("thread/resume", { threadId });
    assert.deepEqual(resumed.ui, expected);
    // A tool's widget, and the resumed ui kept in step by notifications.
    const before = server.main.notifications.length;
    const turn = await server.main.request("turn/start", { threadId, text: "show it" });
    assert.equal(turn.status, "started");
    await server.main.waitForNotification("thread/turn/completed", (p) => p.threadId === threadId, { since: before, timeoutMs: 20_000 });
    const now = applied(resumed.ui, uiSince(server.main, threadId, before));
    assert.deepEqual(
      now.widgets.map((w) => w.key),
      ["panel", "lines", "from-tool"],
    );
    assert.deepEqual((await server.main.request("thread/resume", { threadId })).ui, now);
    // A fork loads the extensions anew: its ui is what their session_start showed.
    const forked = await server.main.request("thread/fork", { threadId });
    assert.deepEqual(forked.ui, SESSION_UI);
  });

  test("limits after load: 50 statuses and 16 widgets, one warning notification per refused key per load", async () => {
    const { threadId, mark } = await startThread();
    await command(threadId, "/limits");
    const warnings = uiSince(server.main, threadId, mark)
      .filter((n) => n.method === "warning")
      .map((n) => (n.params.warning as { message: string }).message);
    // Two statuses and three widgets were there already.
    assert.deepEqual(warnings, [
      'status "s48" refused: a thread shows at most 50 statuses',
      'status "s49" refused: a thread shows at most 50 statuses',
      'status "s50" refused: a thread shows at most 50 statuses',
      'status "s51" refused: a thread shows at most 50 statuses',
      'widget "w13" refused: a thread shows at most 16 widgets',
      'widget "w14" refused: a thread shows at most 16 widgets',
      'widget "w15" refused: a thread shows at most 16 widgets',
    ]);
    const resumed = await server.main.request("thread/resume", { threadId });
    assert.equal(resumed.ui.statuses.length, 50);
    assert.equal(resumed.ui.widgets.length, 16);
  });

  test("views on items: a valid details.view shows on the toolCall and extensionMessage items, live and in history; an invalid or oversized one is dropped", async () => {
    const { threadId, mark } = await startThread();
    model.enqueue(
      {
        toolCalls: [
          { id: "view-small", name: "show", arguments: {} },
          { id: "view-big", name: "show", arguments: { big: true } },
        ],
      },
      { text: "done" },
    );
    await server.main.request("turn/start", { threadId, text: "show" });
    await server.main.waitForNotification("thread/turn/completed", (p) => p.threadId === threadId, { since: mark, timeoutMs: 20_000 });
    const live = server.main
      .notificationsOf("item/completed")
      .filter((p) => p.threadId === threadId)
      .map((p) => p.item as Item)
      .filter((item) => item.type === "toolCall" || item.type === "extensionMessage");
    const shape = (item: Item) => [item.type === "toolCall" ? item.id : (item as { text: string }).text, (item as { view?: unknown }).view ?? null];
    const expected = [
      [
        "view-small",
        {
          type: "stack",
          children: [
            { type: "text", text: "result" },
            { type: "button", id: "again", label: "Again" },
          ],
        },
      ],
      ["view-big", null],
      ["a note", { type: "text", text: "note view" }],
      ["bad note", null],
    ];
    assert.deepEqual(live.map(shape).sort(), [...expected].sort());
    assert.ok(
      live.every((item) => item.type !== "toolCall" || item.output === "shown"),
      "the raw output shows either way",
    );
    const read = await server.main.request("thread/read", { threadId });
    const saved = read.turns.flatMap((t) => (t.items ?? []) as Item[]).filter((item) => item.type === "toolCall" || item.type === "extensionMessage");
    assert.deepEqual(saved.map(shape).sort(), [...expected].sort());
  });
});

describe("spec: Dialogs and extension UI (buffered across a resume)", () => {
  test("a second client resuming while the UI changes every few ms: the result's ui plus every notification after it is the UI as it ends", async () => {
    const { threadId } = await startThread();
    await command(threadId, "/tick");
    await server.main.waitForNotification("ui/widget", (p) => p.threadId === threadId && p.key === "tock");
    // Several resumes, each installed afresh with what arrived from its subscription on.
    let resumed: ThreadUi | undefined;
    let from = 0;
    for (let i = 0; i < 5; i++) {
      if (i > 0) await ws.request("thread/unsubscribe", { threadId });
      from = ws.notifications.length;
      resumed = (await ws.request("thread/resume", { threadId })).ui;
    }
    const tickBefore = Number(resumed!.statuses.find((s) => s.key === "tick")!.text);
    await waitUntil("a few more ticks", () =>
      ws.notifications
        .slice(from)
        .some((n) => n.method === "ui/state" && Number(JSON.stringify(n.params).match(/"tick","text":"(\d+)"/)?.[1]) > tickBefore + 5),
    );
    await command(threadId, "/stop");
    await ws.waitForNotification("ui/state", (p) => p.threadId === threadId && p.statuses.some((s) => s.key === "tick" && s.text === "stopped"), {
      since: from,
    });
    const shown = applied(resumed!, uiSince(ws, threadId, from));
    const now = (await server.main.request("thread/resume", { threadId })).ui;
    assert.deepEqual(shown, now);
    assert.deepEqual(
      now.widgets.map((w) => w.key).sort(),
      (now.widgets.some((w) => w.key === "tock") ? ["lines", "panel", "second", "tick", "tock"] : ["lines", "panel", "second", "tick"]).sort(),
    );
  });
});

describe("spec: ui/event", () => {
  test("a toggle, a select, a button and a text field reach both extensions' handlers with {widgetKey, id, value?}", async () => {
    const { threadId } = await startThread();
    const send = async (id: string, value?: string | boolean) => {
      const mark = server.main.notifications.length;
      assert.deepEqual(await server.main.request("ui/event", { threadId, widgetKey: "panel", id, ...(value === undefined ? {} : { value }) }), {});
      // The answer waited for the handlers: what they showed came first.
      const last = applied({ statuses: [], workingVisible: true, widgets: [] }, uiSince(server.main, threadId, mark));
      return Object.fromEntries(last.statuses.filter((s) => s.key.startsWith("seen-")).map((s) => [s.key, JSON.parse(s.text)]));
    };
    const event = (id: string, value?: string | boolean) => ({ widgetKey: "panel", id, ...(value === undefined ? {} : { value }) });
    assert.deepEqual(await send("verbose", true), { "seen-panel": event("verbose", true), "seen-watcher": event("verbose", true) });
    assert.deepEqual(await send("level", "high"), { "seen-panel": event("level", "high"), "seen-watcher": event("level", "high") });
    assert.deepEqual(await send("run"), { "seen-panel": event("run"), "seen-watcher": event("run") });
    assert.deepEqual(await send("name", "typed"), { "seen-panel": event("name", "typed"), "seen-watcher": event("name", "typed") });
    // The server changed no view.
    const resumed = await server.main.request("thread/resume", { threadId });
    assert.deepEqual(
      resumed.ui.widgets.find((w) => w.key === "panel"),
      SESSION_UI.widgets[0],
    );
  });

  test("a value that does not fit its control is invalidParams; a gone widget or control answers {} and reaches nobody", async () => {
    const { threadId } = await startThread();
    const refused = async (id: string, value: unknown, pattern: RegExp) => {
      const answer = await server.main.rawRequest("ui/event", { threadId, widgetKey: "panel", id, ...(value === undefined ? {} : { value }) });
      assert.equal(answer.error?.code, "invalidParams", JSON.stringify(answer));
      assert.match(answer.error!.message, pattern);
    };
    await refused("run", true, /a button takes no value/);
    await refused("verbose", "yes", /a toggle takes a boolean/);
    await refused("verbose", undefined, /a toggle takes a boolean/);
    await refused("level", "medium", /one of its options/);
    await refused("name", false, /a text field takes a string/);
    await refused("name", 3, /params\.value/);
    const mark = server.main.notifications.length;
    for (const [widgetKey, id] of [
      ["nope", "run"],
      ["panel", "ghost"],
      ["lines", "run"],
    ] as const) {
      assert.deepEqual(await server.main.request("ui/event", { threadId, widgetKey, id }), {});
    }
    assert.deepEqual(uiSince(server.main, threadId, mark), [], "no handler ran");
    await assert.rejects(
      server.main.request("ui/event", { threadId: "no-such-thread", widgetKey: "panel", id: "run" }),
      (error: unknown) => (error as AppServerError).code === "threadNotFound",
    );
  });

  test("a handler that throws or never settles becomes a warning naming its extension; the answer is {} and the other handler ran", async () => {
    const { threadId } = await startThread();
    let mark = server.main.notifications.length;
    assert.deepEqual(await server.main.request("ui/event", { threadId, widgetKey: "panel", id: "explode" }), {});
    let seen = uiSince(server.main, threadId, mark);
    assert.deepEqual(
      seen.filter((n) => n.method === "warning").map((n) => n.params.warning),
      [{ message: "view event handler of watcher failed: watcher exploded", source: "extension", path: paths.watcher }],
    );
    assert.ok(
      seen.some((n) => n.method === "ui/state" && JSON.stringify(n.params.statuses).includes("explode")),
      "the panel's handler ran",
    );
    mark = server.main.notifications.length;
    const started = Date.now();
    assert.deepEqual(await server.main.request("ui/event", { threadId, widgetKey: "panel", id: "hang" }), {});
    assert.ok(Date.now() - started >= 350, "the answer waited for the handler's limit");
    seen = uiSince(server.main, threadId, mark);
    assert.deepEqual(
      seen.filter((n) => n.method === "warning").map((n) => n.params.warning),
      [{ message: "view event handler of watcher did not finish within 400 ms; it was abandoned", source: "extension", path: paths.watcher }],
    );
  });

  test("terminal-only methods do nothing and log one line each per thread load, on stderr", async () => {
    const { threadId } = await startThread();
    const methods = ["custom", "setHeader", "setFooter", "setEditorText", "getEditorText", "pasteToEditor", "setWidget"];
    await waitUntil("the log lines", () => methods.every((m) => server.stderr.includes(`thread ${threadId}: ui.${m}:`)));
    for (const method of methods) {
      const lines = server.stderr.split("\n").filter((line) => line.includes(`thread ${threadId}: ui.${method}:`));
      assert.equal(lines.length, 1, `${method}: ${lines.join("\n")}`);
    }
  });
});

describe("spec: Dialogs and extension UI (views), fuzzed through the server", () => {
  test("an extension setting random views: every ui/widget sent is a valid view (schema and an independent checker)", async () => {
    const { threadId, mark } = await startThread();
    for (const seed of [7, 8, 9]) await command(threadId, `/fuzz ${seed}`);
    const widgets = uiSince(server.main, threadId, mark).filter((n) => n.method === "ui/widget" && "view" in n.params);
    assert.ok(widgets.length > 50, `${widgets.length} views sent`);
    for (const { params } of widgets) assert.ok(isValidViewJson(JSON.stringify(params.view), 16 * 1024), JSON.stringify(params.view).slice(0, 300));
    // One warning per refused key per load, whatever the number of refusals.
    const warned = uiSince(server.main, threadId, mark)
      .filter((n) => n.method === "warning")
      .map((n) => (n.params.warning as { message: string }).message);
    assert.ok(warned.length > 0 && warned.length <= 8, warned.join("\n"));
    server.main.assertNoSchemaViolations();
    // The same trees, built here: whatever is plain and valid was sent, in order.
    const expected: unknown[] = [];
    for (const seed of [7, 8, 9]) {
      const random = new Random(seed);
      for (let i = 0; i < 400; i++) {
        const tree = randomView(random, { hostile: true, maxDepth: 10 });
        let json: string | undefined;
        try {
          json = JSON.stringify(tree);
        } catch {
          json = undefined;
        }
        if (json !== undefined && isValidViewJson(json, 16 * 1024)) expected.push(JSON.parse(json));
      }
    }
    const sent = widgets.map((n) => n.params.view);
    // Hostile trees that are valid as JSON (a getter, a proxy) are refused; every sent one is among those expected, in order.
    let at = 0;
    for (const view of sent) {
      const found = expected.findIndex((candidate, index) => index >= at && JSON.stringify(candidate) === JSON.stringify(view));
      assert.ok(found >= 0, `sent but not expected: ${JSON.stringify(view).slice(0, 200)}`);
      at = found + 1;
    }
  });
});
