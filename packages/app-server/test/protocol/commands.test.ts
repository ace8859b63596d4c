import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { ScratchFiles, statTree } from "../support/files.js";
import { startServer, type TestClient, type TestServer } from "../support/harness.js";

// Slash commands on desktop: command/list, the built-in commands typed into
// turn/start (/reload, /new, /compact), and the session-replacing ones that
// move every subscriber with thread/replaced.

const TOKEN = "commands-test-token-0123456789abcdef";

let model: ScriptedModelServer;
let scratch: ScratchFiles;
before(async () => {
  model = await ScriptedModelServer.start();
  scratch = new ScratchFiles("kc-commands-");
});
after(async () => {
  await model.close();
  scratch.remove();
});

const scratchFile = (name: string, content?: string): string => scratch.file(name, content);

/**
 * An extension with a command, a provider its factory registers, and a
 * session_start handler that appends its reason to `marker`: proof of
 * whether a session started.
 */
function deployExtension(marker: string): string {
  return `
import { appendFileSync } from "node:fs";
export default function (kc: any) {
  kc.registerCommand("deploy", { description: "Ship the build", handler: () => undefined });
  kc.registerProvider("probe-provider", { baseUrl: "http://127.0.0.1:9", apiKey: "none", models: [{ id: "probe-model" }] });
  kc.on("session_start", (event: any) => { appendFileSync(${JSON.stringify(marker)}, event.reason + "\\n"); });
}
`;
}

/** A global prompt template and skill in the agent dir, and a project with its own template and extension command. */
function writeResources(server: TestServer): string {
  mkdirSync(join(server.agentDir, "prompts"), { recursive: true });
  writeFileSync(join(server.agentDir, "prompts", "review.md"), "---\ndescription: Review the diff\n---\nReview $@\n");
  mkdirSync(join(server.agentDir, "skills", "lint"), { recursive: true });
  writeFileSync(join(server.agentDir, "skills", "lint", "SKILL.md"), "---\nname: lint\ndescription: Lint the code\n---\nRun the linter.\n");
  return server.project({
    ".knightcode/prompts/secret.md": "---\ndescription: A project template\n---\nProject text\n",
    ".knightcode/extensions/project.ts": `export default function (kc: any) { kc.registerCommand("proj", { description: "Project command", handler: () => undefined }); }`,
  });
}

const BUILTINS = [
  { name: "compact", description: "Summarize older history now, as a turn of its own, to free context" },
  { name: "new", description: "Start a new thread in this project with the same model, thinking level and approval mode" },
  { name: "plan", description: "Plan before changing anything: only read-only tools run until you approve a plan (/plan off leaves plan mode)" },
  { name: "reload", description: "Reload extensions, settings, prompt templates and skills" },
];
const byName = (list: { name: string }[]) => list.map((c) => c.name);

describe("spec: command/list", () => {
  test("with cwd: built-ins, extension commands, templates and skills as skill:<name>, sorted; no session_start, nothing written, no provider left; an untrusted project's own resources wait for trust", async () => {
    const marker = scratchFile("sessions-started.txt");
    const extension = scratchFile("deploy.ts", deployExtension(marker));
    const server = await startServer({ model, args: ["-e", extension] });
    try {
      const cwd = writeResources(server);
      // The thread layer loads first, so what it sets up once is not mistaken for the listing's writes.
      await server.main.request("model/list", {});
      const before = statTree(server.home, join(server.agentDir, "cache"));

      const { commands } = await server.main.request("command/list", { cwd });
      assert.deepEqual(commands, [
        BUILTINS[0],
        { name: "deploy", description: "Ship the build" },
        BUILTINS[1],
        BUILTINS[2],
        BUILTINS[3],
        { name: "review", description: "Review the diff" },
        { name: "skill:lint", description: "Lint the code" },
      ]);
      assert.deepEqual(statTree(server.home, join(server.agentDir, "cache")), before, "command/list wrote nothing outside the compile cache");
      assert.equal(existsSync(marker), false, "no session_start ran");
      const { models } = await server.main.request("model/list", {});
      assert.equal(
        models.some((m) => m.provider === "probe-provider"),
        false,
        "the factory's provider went with the in-memory session",
      );

      await server.main.request("project/trust/set", { cwd, trusted: true });
      const trusted = await server.main.request("command/list", { cwd });
      assert.deepEqual(byName(trusted.commands), ["compact", "deploy", "new", "plan", "proj", "reload", "review", "secret", "skill:lint"]);
      assert.equal(existsSync(marker), false);
      await server.close();
    } finally {
      server.cleanup();
    }
  });

  test("with threadId: a loaded thread's commands; a saved thread that is not loaded is listed from its folder without loading; an unknown one is threadNotFound", async () => {
    const marker = scratchFile("sessions-started.txt");
    const extension = scratchFile("deploy.ts", deployExtension(marker));
    const first = await startServer({ model, args: ["-e", extension] });
    const home = first.home;
    let second: TestServer | undefined;
    try {
      const cwd = writeResources(first);
      const { thread } = await first.main.request("thread/start", { cwd });
      const loaded = await first.main.request("command/list", { threadId: thread.id });
      assert.deepEqual(byName(loaded.commands), ["compact", "deploy", "new", "plan", "reload", "review", "skill:lint"]);
      assert.equal(readFileSync(marker, "utf8"), "startup\n");
      first.transport.close();
      await first.waitForExit();
      first.assertNoSchemaViolations();

      second = await startServer({ model, home, args: ["-e", extension] });
      const saved = await second.main.request("command/list", { threadId: thread.id });
      assert.deepEqual(saved.commands, loaded.commands);
      assert.equal(readFileSync(marker, "utf8"), "startup\n", "listing a saved thread started no session");
      const { threads } = await second.main.request("thread/list", {});
      assert.deepEqual(threads.find((t) => t.id === thread.id)?.status, { type: "notLoaded" });

      const unknown = await second.main.rawRequest("command/list", { threadId: "00000000-0000-4000-8000-000000000000" });
      assert.equal(unknown.error?.code, "threadNotFound");
      await second.close();
    } finally {
      second?.cleanup();
      first.cleanup();
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("neither or both of threadId and cwd, and a cwd that is not an absolute existing directory, are invalidParams", async () => {
    const server = await startServer({ model });
    try {
      const cwd = server.project({ "file.txt": "x" });
      const cases: [unknown, RegExp][] = [
        [{}, /threadId or cwd/],
        [{ threadId: "t", cwd }, /threadId or cwd/],
        [{ cwd: "relative/dir" }, /params\.cwd/],
        [{ cwd: join(cwd, "missing") }, /params\.cwd/],
        [{ cwd: join(cwd, "file.txt") }, /params\.cwd/],
        [{ cwd: "" }, /cwd/],
      ];
      for (const [params, message] of cases) {
        const answer = await server.main.rawRequest("command/list", params);
        assert.equal(answer.error?.code, "invalidParams", JSON.stringify(params));
        assert.match(answer.error!.message, message);
      }
      await server.close();
    } finally {
      server.cleanup();
    }
  });
});

/** An extension that shows `version` in a status and in widgets, and offers a command named after it. */
function showingExtension(version: string, widgets: string[]): string {
  return `
export default function (kc: any) {
  kc.registerCommand("only-${version}", { description: "${version}", handler: () => undefined });
  kc.on("session_start", (_event: any, ctx: any) => {
    ctx.ui.setStatus("version", "${version}");
    for (const key of ${JSON.stringify(widgets)}) ctx.ui.setWidget(key, ["${version}"]);
  });
}
`;
}

type Seen = [method: string, detail: unknown];

/** The UI notifications, warnings and turn starts of one thread since `mark`, in order. */
function uiSince(client: TestClient, threadId: string, mark: number): Seen[] {
  return client.notifications.slice(mark).flatMap((n): Seen[] => {
    const p = n.params as Record<string, any>;
    if (p.threadId !== threadId) return [];
    if (n.method === "ui/state" || n.method === "ui/widget") {
      const { threadId: _id, ...rest } = p;
      return [[n.method, rest]];
    }
    if (n.method === "warning") return [[n.method, p.warning.message]];
    if (n.method === "turn/started") return [[n.method, ""]];
    return [];
  });
}

describe("spec: /reload", () => {
  test("answers handled, starts no turn, clears what the old extensions showed before the new ones start, and reports reload warnings", async () => {
    const extension = scratchFile("showing.ts", showingExtension("v1", ["w1", "w2"]));
    const flaky = scratchFile("flaky.ts", `export default function () {}`);
    const server = await startServer({ model, args: ["-e", extension, "-e", flaky] });
    try {
      const cwd = server.project();
      const started = await server.main.request("thread/start", { cwd });
      const threadId = started.thread.id;
      assert.deepEqual(started.ui, {
        statuses: [{ key: "version", text: "v1" }],
        workingVisible: true,
        widgets: [
          { key: "w1", placement: "aboveEditor", lines: ["v1"] },
          { key: "w2", placement: "aboveEditor", lines: ["v1"] },
        ],
      });
      assert.ok(byName((await server.main.request("command/list", { threadId })).commands).includes("only-v1"));

      writeFileSync(extension, showingExtension("v2", ["w3"]));
      writeFileSync(flaky, `export default function () { throw new Error("flaky broke"); }`);
      const requests = model.requests.length;
      const mark = server.main.notifications.length;
      const answer = await server.main.request("turn/start", { threadId, text: "/reload", requestId: "reload-1" });
      assert.deepEqual(answer, { status: "handled", threadId, requestId: "reload-1" });

      await server.main.waitForNotification("warning", (p) => p.threadId === threadId, { since: mark });
      assert.deepEqual(uiSince(server.main, threadId, mark), [
        ["ui/widget", { key: "w1" }],
        ["ui/widget", { key: "w2" }],
        ["ui/state", { statuses: [], workingVisible: true }],
        ["ui/state", { statuses: [{ key: "version", text: "v2" }], workingVisible: true }],
        ["ui/widget", { key: "w3", placement: "aboveEditor", lines: ["v2"] }],
        ["warning", "extension failed to load: flaky broke"],
      ]);
      assert.equal(model.requests.length, requests, "the model was never asked");
      const commands = byName((await server.main.request("command/list", { threadId })).commands);
      assert.ok(commands.includes("only-v2") && !commands.includes("only-v1"), commands.join(" "));

      const resumed = await server.main.request("thread/resume", { threadId });
      assert.deepEqual(resumed.ui.widgets, [{ key: "w3", placement: "aboveEditor", lines: ["v2"] }]);
      assert.deepEqual(
        resumed.warnings.map((w) => w.message),
        ["extension failed to load: flaky broke"],
      );
      await server.close();
    } finally {
      server.cleanup();
    }
  });

  test("during a turn: turn/start with /reload or /new is turnInProgress, turn/queue/add and turn/steer refuse it; after the turn it runs", async () => {
    const extension = scratchFile("showing.ts", showingExtension("v1", []));
    const server = await startServer({ model, args: ["-e", extension] });
    try {
      const { thread } = await server.main.request("thread/start", { cwd: server.project() });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      model.enqueue({ text: ["one ", "two"], pauseAfter: 1, gate });
      const turn = await server.main.request("turn/start", { threadId: thread.id, text: "hello" });
      assert.equal(turn.status, "started");

      const during = await server.main.rawRequest("turn/start", { threadId: thread.id, text: "/reload" });
      assert.equal(during.error?.code, "turnInProgress");
      const replacing = await server.main.rawRequest("turn/start", { threadId: thread.id, text: "/new" });
      assert.equal(replacing.error?.code, "turnInProgress");
      const queued = await server.main.rawRequest("turn/queue/add", { threadId: thread.id, text: "/reload" });
      assert.equal(queued.error?.code, "invalidParams");
      assert.match(queued.error!.message, /\/reload runs only through turn\/start/);
      const steered = await server.main.rawRequest("turn/steer", { threadId: thread.id, text: "/reload", expectedTurnId: "any-turn" });
      assert.equal(steered.error?.code, "invalidParams");

      release();
      await server.main.waitForNotification("thread/turn/completed", (p) => p.threadId === thread.id);
      const mark = server.main.notifications.length;
      const after = await server.main.request("turn/start", { threadId: thread.id, text: "/reload" });
      assert.equal(after.status, "handled");
      assert.deepEqual(uiSince(server.main, thread.id, mark)[0], ["ui/state", { statuses: [], workingVisible: true }]);
      const args = await server.main.rawRequest("turn/start", { threadId: thread.id, text: "/reload now" });
      assert.equal(args.error?.code, "invalidParams");
      await server.close();
    } finally {
      server.cleanup();
    }
  });
});

/**
 * `/fresh` replaces the thread through ctx.newSession(), then uses its
 * captured context once more: a status, and a second newSession whose
 * failure it writes to `marker` after the new thread's id.
 */
function replacingExtension(marker: string): string {
  return `
import { appendFileSync } from "node:fs";
export default function (kc: any) {
  kc.registerCommand("fresh", {
    description: "Start over",
    handler: async (_args: string, ctx: any) => {
      const id = await ctx.newSession();
      appendFileSync(${JSON.stringify(marker)}, "new " + id + "\\n");
      ctx.ui.setStatus("stale", "should not show");
      try {
        await ctx.newSession();
        appendFileSync(${JSON.stringify(marker)}, "second newSession succeeded\\n");
      } catch (error: any) {
        appendFileSync(${JSON.stringify(marker)}, "second " + error.message + "\\n");
      }
    },
  });
}
`;
}

describe("spec: /compact", () => {
  test("turn/start with /compact starts a compaction turn whose turn/started carries the requestId", async () => {
    const server = await startServer({ model });
    try {
      const { thread } = await server.main.request("thread/start", { cwd: server.project() });
      model.enqueue({ text: "one" }, { text: "two" });
      for (const text of ["q1", "q2"]) {
        const mark = server.main.notifications.length;
        await server.main.request("turn/start", { threadId: thread.id, text });
        await server.main.waitForNotification("thread/turn/completed", (p) => p.threadId === thread.id, { since: mark });
      }
      model.enqueue({ text: "## Goal\nsummary" });
      const mark = server.main.notifications.length;
      const answer = await server.main.request("turn/start", { threadId: thread.id, text: "/compact", requestId: "compact-1" });
      assert.deepEqual(answer, { status: "started", threadId: thread.id, requestId: "compact-1" });
      const started = await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark });
      assert.equal(started.requestId, "compact-1");
      await server.main.waitForNotification("turn/completed", (p) => p.turn.id === started.turn.id, { since: mark });
      const items = server.main.notificationsOf("item/completed").filter((p) => p.turnId === started.turn.id);
      assert.deepEqual(
        items.map((p) => p.item.type),
        ["compaction"],
      );
      await server.close();
    } finally {
      server.cleanup();
    }
  });
});

describe("spec: session-replacing commands (/new, ctx.newSession)", () => {
  let server: TestServer;
  let ws: TestClient;
  let marker: string;

  before(async () => {
    marker = scratchFile("replaced.txt");
    const extension = scratchFile("fresh.ts", replacingExtension(marker));
    server = await startServer({ model, args: ["-e", extension, "--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN] });
    const url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
    ws = await server.connectWebSocket(url, TOKEN);
    await ws.initialize();
  });
  after(async () => {
    await server.close();
  });

  /** Both clients' thread/replaced for `threadId`, once each has one. */
  async function replacedFor(threadId: string, mark: { main: number; ws: number }) {
    return Promise.all([
      server.main.waitForNotification("thread/replaced", (p) => p.threadId === threadId, { since: mark.main }),
      ws.waitForNotification("thread/replaced", (p) => p.threadId === threadId, { since: mark.ws }),
    ]);
  }

  test("/new keeps requestId, answers the new thread, announces it, moves both subscribers with thread/replaced, and leaves the old history intact; ctx.newSession() does the same and its old context goes stale", async () => {
    const cwd = server.project();
    const { thread: old } = await server.main.request("thread/start", { cwd, approvalMode: "autoEdit" });
    model.enqueue({ text: "first answer" });
    await server.main.request("turn/start", { threadId: old.id, text: "hello" });
    await server.main.waitForNotification("thread/turn/completed", (p) => p.threadId === old.id);
    await ws.request("thread/resume", { threadId: old.id });

    const mark = { main: server.main.notifications.length, ws: ws.notifications.length };
    const requests = model.requests.length;
    const answer = await server.main.request("turn/start", { threadId: old.id, text: "/new", requestId: "new-1" });
    assert.equal(answer.status, "handled");
    assert.equal(answer.requestId, "new-1");
    assert.notEqual(answer.threadId, old.id);
    const fresh = answer.threadId;
    assert.equal(model.requests.length, requests, "the model was never asked");

    const announced = await ws.waitForNotification("thread/started", (p) => p.thread.id === fresh, { since: mark.ws });
    for (const replaced of await replacedFor(old.id, mark)) {
      assert.equal(replaced.thread.id, fresh);
      assert.equal(replaced.thread.cwd, cwd);
      assert.equal(replaced.thread.approvalMode, "autoEdit");
      assert.deepEqual(replaced.thread.model, old.model);
      assert.deepEqual(replaced.warnings, []);
      assert.deepEqual(replaced.ui, { statuses: [], workingVisible: true, widgets: [] });
    }
    assert.equal(announced.thread.approvalMode, "autoEdit");

    // Both clients now follow the new thread, and neither the old one.
    model.enqueue({ text: "in the new thread" });
    await server.main.request("turn/start", { threadId: fresh, text: "again" });
    await Promise.all([server.main, ws].map((c) => c.waitForNotification("turn/completed", (p) => p.threadId === fresh, { since: 0 })));
    assert.equal((await ws.request("thread/unsubscribe", { threadId: old.id })).status, "notSubscribed");
    assert.equal((await server.main.request("thread/unsubscribe", { threadId: old.id })).status, "notSubscribed");

    // The old thread unloads; its history is as it was.
    await server.main.waitForNotification("thread/status/changed", (p) => p.threadId === old.id && p.status.type === "notLoaded", { since: mark.main });
    const history = await server.main.request("thread/read", { threadId: old.id });
    assert.equal(history.turns.length, 1);
    assert.deepEqual(
      history.turns[0]!.items!.map((item: any) => [item.type, item.text]),
      [
        ["userMessage", "hello"],
        ["agentMessage", "first answer"],
      ],
    );

    // An extension command replaces the new thread in turn.
    const mark2 = { main: server.main.notifications.length, ws: ws.notifications.length };
    const viaExtension = await server.main.request("turn/start", { threadId: fresh, text: "/fresh", requestId: "fresh-1" });
    assert.equal(viaExtension.status, "handled");
    assert.equal(viaExtension.requestId, "fresh-1");
    assert.notEqual(viaExtension.threadId, fresh);
    const third = viaExtension.threadId;
    for (const replaced of await replacedFor(fresh, mark2)) assert.equal(replaced.thread.id, third);
    await server.main.waitForNotification("thread/started", (p) => p.thread.id === third, { since: mark2.main });

    // The captured context went stale: its second newSession failed, its status reached nobody, the log says so.
    const lines = readFileSync(marker, "utf8").trim().split("\n");
    assert.equal(lines[0], `new ${third}`);
    assert.match(lines[1]!, new RegExp(`^second this context is stale: thread ${fresh} was replaced by ${third}$`));
    await server.waitForStderr(/ui\.setStatus on its stale extension context does nothing/);
    for (const client of [server.main, ws]) {
      const statuses = client.notificationsOf("ui/state").flatMap((s) => s.statuses.map((x) => x.key));
      assert.equal(statuses.includes("stale"), false);
    }
  });
});
