import { strict as assert } from "node:assert";
import { after, before, describe, test } from "node:test";
import { signal } from "@preact/signals";
import { waitUntil } from "@knightcode/testkit";
import { createSidebarModel, type SidebarModel } from "../src/features/sidebar/model.js";
import { createUnreadMarks, type UnreadMarks } from "../src/features/sidebar/unread.js";
import { asConnection, startInProcessServer, type InProcessServer } from "./feature-model-support.js";

/** The sidebar model over a real in-process server: no page, no browser. */
describe("the sidebar model", () => {
  let server: InProcessServer;
  before(async () => {
    server = await startInProcessServer();
  });
  after(() => server.close());

  /** A model as the page makes one, watching; the caller stops it. */
  async function watching(): Promise<{
    model: SidebarModel;
    unread: UnreadMarks;
    active: ReturnType<typeof signal<string | undefined>>;
    errors: string[];
    stop: () => void;
  }> {
    const connection = asConnection(await server.client());
    const active = signal<string | undefined>(undefined);
    const unread = createUnreadMarks(undefined);
    const errors: string[] = [];
    const model = createSidebarModel({ conn: () => connection, activeThreadId: active, unread, reportError: (_e, doing) => errors.push(doing) });
    return { model, unread, active, errors, stop: model.watch() };
  }

  test("lists the server's threads, newest first, and adds one started elsewhere", async () => {
    const other = await server.client();
    const first = (await other.request("thread/start", { cwd: server.project })).thread;
    await other.request("thread/name/set", { threadId: first.id, name: "first" });
    const { model, errors, stop } = await watching();
    try {
      await waitUntil("the first page", () => model.listState.value.loaded && model.rows.value.some((row) => row.id === first.id));
      const second = (await other.request("thread/start", { cwd: server.project })).thread;
      await waitUntil("the started thread's row", () => model.rows.value[0]?.id === second.id);
      assert.ok(model.rows.value.some((row) => row.id === first.id && row.title === "first"));
      assert.deepEqual(errors, []);
    } finally {
      stop();
    }
  });

  test("patches a row on thread/name/updated and thread/status/changed, and marks a live completion unread", async () => {
    const other = await server.client();
    const { thread } = await other.request("thread/start", { cwd: server.project });
    const { model, unread, active, stop } = await watching();
    try {
      await waitUntil("the thread's row", () => model.rows.value.some((row) => row.id === thread.id));
      const row = () => model.rows.value.find((r) => r.id === thread.id);
      await other.request("thread/name/set", { threadId: thread.id, name: "Renamed" });
      await waitUntil("the new name", () => row()?.title === "Renamed" && row()?.name === "Renamed");

      const statuses: string[] = [];
      const seen = model.rows.subscribe(() => {
        const type = row()?.status.type;
        if (type && statuses.at(-1) !== type) statuses.push(type);
      });
      server.model.enqueue({ text: "done" });
      await other.request("turn/start", { threadId: thread.id, text: "hello" });
      await waitUntil("the mark of the finished turn", () => unread.ids.value.has(thread.id));
      await waitUntil("the idle row", () => row()?.status.type === "idle");
      seen();
      assert.ok(statuses.includes("active"), `the row went through active: ${statuses.join(", ")}`);
      assert.equal(model.failedLastTurn.value.has(thread.id), false);

      // Seen is read: opening the thread clears its mark.
      active.value = thread.id;
      assert.equal(unread.ids.value.has(thread.id), false);
    } finally {
      stop();
    }
  });

  test("the open thread's completion is not marked unread", async () => {
    const other = await server.client();
    const { thread } = await other.request("thread/start", { cwd: server.project });
    const { model, unread, active, stop } = await watching();
    try {
      active.value = thread.id;
      await waitUntil("the thread's row", () => model.rows.value.some((row) => row.id === thread.id));
      // Each completion the model hears renews the failed set: the signal's first call is the subscription's own.
      let heard = -1;
      const stopCounting = model.failedLastTurn.subscribe(() => heard++);
      server.model.enqueue({ text: "done" });
      await other.request("turn/start", { threadId: thread.id, text: "hello" });
      await waitUntil("the model to hear the completion", () => heard === 1);
      stopCounting();
      assert.equal(unread.ids.value.has(thread.id), false);
    } finally {
      stop();
    }
  });

  test("its own requests: archiving takes the row away, and the archived view lists it", async () => {
    const { model, errors, stop } = await watching();
    try {
      const { thread } = await model.start(server.project, false);
      await model.rename(thread.id, "to archive");
      await waitUntil("the named row", () => model.rows.value.find((row) => row.id === thread.id)?.title === "to archive");
      await model.archive(thread.id);
      await waitUntil("the row to go", () => !model.rows.value.some((row) => row.id === thread.id));
      model.showView("archived");
      await waitUntil("the archived row", () => model.listState.value.loaded && model.rows.value.some((row) => row.id === thread.id));
      assert.deepEqual(errors, []);
    } finally {
      stop();
    }
  });
});
