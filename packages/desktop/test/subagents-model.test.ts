import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { signal, type Signal } from "@preact/signals";
import type { AppServerClient } from "@knightcode/app-server-client";
import type { ToolCallItem } from "@knightcode/app-server-protocol";
import { held, waitUntil } from "@knightcode/testkit";
import { createRequestsModel, type PendingCard } from "../src/features/requests/model.js";
import { createSidebarModel, groupByProject, type SidebarModel } from "../src/features/sidebar/model.js";
import { createUnreadMarks } from "../src/features/sidebar/unread.js";
import { createTranscriptModel, type TranscriptModel } from "../src/features/transcript/model.js";
import { subagentsOfCall } from "../src/features/transcript/subagents.js";
import type { OpenThread } from "../src/state/open-threads.js";
import { asConnection, startInProcessServer, type InProcessServer } from "./feature-model-support.js";
import { routeByMarker, type Route } from "./subagent-routes.js";

/** The sidebar, transcript and requests models with a parent thread whose model starts a sub-agent, over a real in-process server. */
describe("sub-agents in the page's models", () => {
  let server: InProcessServer;
  let routes: Map<string, Route>;
  before(async () => {
    server = await startInProcessServer();
    routes = routeByMarker(server.model);
  });
  after(() => server.close());

  /** A parent's turn (its message says `PARENT-<marker>`) that starts one sub-agent named `name`, and the sub-agent's replies. */
  function delegate(marker: string, name: string, child: Route): void {
    routes.set(`PARENT-${marker}`, {
      first: { toolCalls: [{ id: `call_${marker}`, name: "agent_start", arguments: { task: `TASK-${marker} please`, name } }] },
      afterTools: { text: `${marker} delegated` },
    });
    routes.set(`TASK-${marker}`, child);
  }

  function sidebarOn(client: AppServerClient, active = signal<string | undefined>(undefined)): { model: SidebarModel; errors: string[]; stop: () => void } {
    const connection = asConnection(client);
    const errors: string[] = [];
    const model = createSidebarModel({
      conn: () => connection,
      activeThreadId: active,
      unread: createUnreadMarks(undefined),
      reportError: (_e, doing) => errors.push(doing),
    });
    return { model, errors, stop: model.watch() };
  }

  test("the sidebar: a sub-agent appears live from thread/started, under its parent and not at the top, and follows its status", async () => {
    const client = await server.client();
    const { model, errors, stop } = sidebarOn(client);
    const { gate, release } = held();
    delegate("SIDEBAR", "scout", { first: { text: ["", "scout answer"], pauseAfter: 1, gate }, afterTools: { text: "unused" } });
    try {
      const { thread: parent } = await client.request("thread/start", { cwd: server.project, approvalMode: "fullAccess" });
      await waitUntil("the first page", () => model.listState.value.loaded || undefined);
      await client.request("turn/start", { threadId: parent.id, text: "PARENT-SIDEBAR go" });
      // Its row comes while it works: before its answer, so from thread/started, not a later list.
      const child = await waitUntil("the sub-agent's row", () => model.rows.value.find((row) => row.parentThreadId === parent.id));
      assert.equal(child.title, "scout");
      assert.equal(child.parentCallId, "call_SIDEBAR");
      await waitUntil("the sub-agent working", () => model.rows.value.find((row) => row.id === child.id)?.status.type === "active" || undefined);
      const [group] = groupByProject(model.rows.value, "");
      assert.ok(group);
      assert.ok(group.rows.some((row) => row.id === parent.id));
      assert.ok(!group.rows.some((row) => row.id === child.id), "a sub-agent is no top-level row");
      assert.deepEqual(
        group.children.get(parent.id)?.map((row) => row.id),
        [child.id],
      );
      // A search for the sub-agent's name shows its parent, with it underneath.
      const [found] = groupByProject(model.rows.value, "scout");
      assert.deepEqual(
        found?.rows.map((row) => row.id),
        [parent.id],
      );
      release();
      await waitUntil("the sub-agent idle", () => model.rows.value.find((row) => row.id === child.id)?.status.type === "idle" || undefined);
      assert.deepEqual(errors, []);
    } finally {
      release();
      stop();
    }
  });

  test("the sidebar: a listed sub-agent whose parent is older than the pages loaded brings its parent's row", async () => {
    const client = await server.client();
    const { thread: parent } = await client.request("thread/start", { cwd: server.project, approvalMode: "fullAccess" });
    delegate("OLDPARENT", "late", { first: { text: "late answer" }, afterTools: { text: "unused" } });
    const done = client.waitFor("turn/completed", (p) => p.threadId === parent.id);
    await client.request("turn/start", { threadId: parent.id, text: "PARENT-OLDPARENT go" });
    await done;
    // Many newer threads push the parent off the first page; the sub-agent is listed on it as the newest but one.
    for (let i = 0; i < 30; i++) await client.request("thread/start", { cwd: server.project });
    const child = (await client.request("thread/list", { parentThreadId: parent.id })).threads[0]!;
    // Renamed, it is newer than them all.
    await client.request("thread/name/set", { threadId: child.id, name: "late one" });
    const firstPage = (await client.request("thread/list", { limit: 25 })).threads.map((row) => row.id);
    assert.ok(firstPage.includes(child.id) && !firstPage.includes(parent.id), "the sub-agent on the first page, its parent not");
    const { model, stop } = sidebarOn(await server.client());
    try {
      await waitUntil("the parent's row, fetched for its sub-agent", () => model.rows.value.some((row) => row.id === parent.id) || undefined);
      const group = groupByProject(model.rows.value, "").find((g) => g.rows.some((row) => row.id === parent.id));
      assert.deepEqual(
        group?.children.get(parent.id)?.map((row) => row.id),
        [child.id],
      );
    } finally {
      stop();
    }
  });

  test("the transcript: the sub-agent's notifications stay out of the parent's transcript, and feed its card", async () => {
    const client = await server.client();
    const open = new Map<string, Signal<OpenThread | undefined>>();
    const frames = new Map<number, () => void>();
    let next = 0;
    const model: TranscriptModel = createTranscriptModel({
      conn: () => asConnection(client),
      openThread: (id) => {
        let entry = open.get(id);
        if (!entry) open.set(id, (entry = signal(undefined)));
        return entry;
      },
      reportError: () => undefined,
      frame: { request: (run) => (frames.set(++next, run), next), cancel: (handle) => frames.delete(handle) },
    });
    const stop = model.watch();
    // The role chunk and the first words, then a pause while the test looks.
    const { gate, release } = held();
    delegate("CARD", "reader", { first: { text: ["the reader ", "is reading"], pauseAfter: 2, gate }, afterTools: { text: "unused" } });
    try {
      const { thread: parent } = await client.request("thread/start", { cwd: server.project, approvalMode: "fullAccess" });
      const resumed = await client.request("thread/resume", { threadId: parent.id });
      open.set(parent.id, signal<OpenThread | undefined>({ ...resumed, resumed, generation: 1 }));
      const done = client.waitFor("turn/completed", (p) => p.threadId === parent.id);
      await client.request("turn/start", { threadId: parent.id, text: "PARENT-CARD go" });
      // While it works: its first words, live, on the card of the call that started it.
      const childId = await waitUntil("the sub-agent's first words", () => {
        for (const run of frames.values()) run();
        frames.clear();
        return [...model.subagents.live.value.values()].find((c) => c.text === "the reader ")?.threadId;
      });
      const call = () =>
        model
          .transcript(parent.id)
          .state.value.turns.flatMap((t) => t.items)
          .find((i): i is ToolCallItem => i.type === "toolCall" && i.id === "call_CARD");
      const running = subagentsOfCall(parent.id, call()!, model.subagents.live.value);
      assert.deepEqual(running, [{ threadId: childId, name: "reader", status: "working", text: "the reader " }]);
      release();
      await done;
      const items = model.transcript(parent.id).state.value.turns.flatMap((t) => t.items);
      // The parent's own items only: its message, the call and its answer; none of the sub-agent's.
      assert.deepEqual(
        items.map((i) => i.type),
        ["userMessage", "toolCall", "agentMessage"],
      );
      assert.ok(!items.some((i) => "text" in i && i.text.includes("reading")));
      assert.equal(model.transcript(childId).state.value.turns.length, 0, "the sub-agent's thread is not open: nothing kept for it");
      const [ended] = subagentsOfCall(parent.id, call()!, model.subagents.live.value);
      assert.deepEqual(ended, { threadId: childId, name: "reader", status: "completed", text: "the reader is reading" });
    } finally {
      release();
      stop();
    }
  });

  test("requests: a sub-agent's approval shows under its open parent, names its thread, and answering it lets it write", async () => {
    const client = await server.client();
    const active = signal<string | undefined>(undefined);
    const sidebar = sidebarOn(client, active);
    const connection = asConnection(client);
    const toasts: string[] = [];
    const parentOf = (id: string) => sidebar.model.rows.value.find((row) => row.id === id)?.parentThreadId;
    const requests = createRequestsModel({ conn: () => connection, activeThreadId: active, toast: (text) => toasts.push(text), parentOf });
    const stopRequests = requests.install();
    delegate("ASKS", "writer", {
      first: { toolCalls: [{ id: "call_child_write", name: "write", arguments: { path: "from-child.txt", content: "child\n" } }] },
      afterTools: { text: "wrote it" },
    });
    try {
      await waitUntil("the first page", () => sidebar.model.listState.value.loaded || undefined);
      const { thread: parent } = await client.request("thread/start", { cwd: server.project, approvalMode: "ask" });
      active.value = parent.id;
      const done = client.waitFor("turn/completed", (p) => p.threadId === parent.id);
      await client.request("turn/start", { threadId: parent.id, text: "PARENT-ASKS go" });
      const card = await waitUntil("the sub-agent's approval under its parent", () =>
        requests
          .threadCards(parent.id)
          .value.find((c): c is Extract<PendingCard, { method: "item/toolCall/requestApproval" }> => c.method === "item/toolCall/requestApproval"),
      );
      assert.notEqual(card.threadId, parent.id, "it is the sub-agent's");
      assert.equal(parentOf(card.threadId), parent.id);
      assert.deepEqual(toasts, [], "asked under the open thread: no announcement of another");
      card.answer({ decision: "accept" });
      await done;
      assert.equal(readFileSync(join(server.project, "from-child.txt"), "utf8"), "child\n");
    } finally {
      stopRequests();
      sidebar.stop();
    }
  });
});
