import { strict as assert } from "node:assert";
import { after, before, describe, test } from "node:test";
import type { AppServerClient } from "@knightcode/app-server-client";
import type { ReviewCommentInput, UserMessageItem } from "@knightcode/app-server-protocol";
import { held, waitUntil } from "@knightcode/testkit";
import { createComposerModel, type ComposerModel } from "../src/features/composer/model.js";
import { asConnection, startInProcessServer, type InProcessServer } from "./feature-model-support.js";

/** The composer model over a real in-process server: no page, no browser. */
describe("the composer model", () => {
  let server: InProcessServer;
  before(async () => {
    server = await startInProcessServer();
  });
  after(() => server.close());

  interface Made {
    client: AppServerClient;
    model: ComposerModel;
    followed: string[];
    comments: Map<string, ReviewCommentInput[]>;
    threadId: string;
  }

  async function made(reloaded: (threadId: string) => Promise<void> = () => Promise.resolve()): Promise<Made> {
    const client = await server.client();
    const connection = asConnection(client);
    const followed: string[] = [];
    const comments = new Map<string, ReviewCommentInput[]>();
    const model = createComposerModel({
      conn: () => connection,
      turnsShown: () => 0,
      follow: (id) => followed.push(id),
      reloaded,
      takeComments: (id) => {
        const taken = comments.get(id) ?? [];
        comments.delete(id);
        return taken;
      },
      restoreComments: (id, list) => comments.set(id, list),
    });
    const { thread } = await client.request("thread/start", { cwd: server.project });
    return { client, model, followed, comments, threadId: thread.id };
  }

  const completed = (client: AppServerClient, threadId: string) => client.waitFor("turn/completed", (p) => p.threadId === threadId);

  const userItems = async (client: AppServerClient, threadId: string) => {
    const { turns } = await client.request("thread/read", { threadId });
    return turns.flatMap((t) => t.items ?? []).filter((i): i is UserMessageItem => "type" in i && i.type === "userMessage");
  };

  test("an idle thread: the message shows as sending before the server answers, then as sent, and the turn's live item carries the same id", async () => {
    const { client, model, threadId } = await made();
    server.model.enqueue({ text: "hello back" });
    const echoed: string[] = [];
    const stopEcho = client.onNotification("item/started", ({ item }) => {
      if (item.type === "userMessage" && "clientMessageId" in item && item.clientMessageId) echoed.push(item.clientMessageId);
    });
    const done = completed(client, threadId);
    const sent = model.send({ threadId, text: "hello", images: [] }, false);
    const shown = model.sending.value.get(threadId);
    assert.equal(shown?.length, 1, "shown before any answer");
    assert.equal(shown[0]!.confirmed, false);
    assert.equal(await sent, "started");
    assert.equal(model.sending.value.get(threadId)?.[0]?.confirmed, true);
    await done;
    stopEcho();
    assert.deepEqual(echoed, [shown[0]!.clientMessageId], "the live item names the message the page showed");
    model.forgetSending(threadId, shown[0]!.clientMessageId);
    assert.equal(model.sending.value.has(threadId), false);
  });

  test("a thread the page thought idle but is busy: the refused start becomes a queued follow-up that runs after the turn", async () => {
    const { client, model, threadId } = await made();
    const { gate, release } = held();
    server.model.enqueue({ text: ["first ", "reply"], pauseAfter: 1, gate }, { text: "second reply" });
    const seen = server.model.pending;
    await client.request("turn/start", { threadId, text: "first" });
    await waitUntil("the first turn's model request", () => server.model.pending < seen);
    assert.equal(await model.send({ threadId, text: "second", images: [] }, false), "queued");
    assert.equal(model.sending.value.has(threadId), false, "a queued message is not shown as sending");
    let ended = 0;
    const both = client.waitFor("turn/completed", (p) => p.threadId === threadId && ++ended === 2);
    release();
    await both;
    assert.deepEqual(
      (await userItems(client, threadId)).map((i) => i.text),
      ["first", "second"],
    );
  });

  test("a steer to a stale turn id reaches the running turn; after the turn ends it is a message of its own", async () => {
    const { client, model, threadId } = await made();
    const { gate, release } = held();
    server.model.enqueue({ text: ["working ", "on it"], pauseAfter: 1, gate }, { text: "took the steer" }, { text: "a turn of its own" });
    const seen = server.model.pending;
    await client.request("turn/start", { threadId, text: "go" });
    await waitUntil("the turn's model request", () => server.model.pending < seen);
    assert.equal(await model.steer({ threadId, text: "also this", images: [] }, "turn-that-ended-long-ago"), "steered");
    const done = completed(client, threadId);
    release();
    await done;
    const next = completed(client, threadId);
    assert.equal(await model.steer({ threadId, text: "and this", images: [] }, undefined), "queued");
    await next;
    const texts = (await userItems(client, threadId)).map((i) => i.text);
    assert.deepEqual(texts, ["go", "also this", "and this"]);
  });

  test("review comments travel with the message, and come back when the server refuses it", async () => {
    const { model, comments, threadId } = await made();
    const comment: ReviewCommentInput = { path: "a.txt", hunkId: "no-such-hunk", startLine: 1, endLine: 1, text: "why?" };
    comments.set(threadId, [comment]);
    await assert.rejects(model.send({ threadId, text: "look", images: [] }, false), (error: Error & { code?: string }) => error.code === "invalidParams");
    assert.deepEqual(comments.get(threadId), [comment], "the comments are back, for the user to send again");
    assert.equal(model.sending.value.has(threadId), false, "nothing left shown as sending");
  });

  test("while the thread reloads after thread/replaced, a message shows as sending and its turn starts only once the reload was taken", async () => {
    const { gate, release } = held();
    const { client, model, threadId } = await made(() => gate);
    server.model.enqueue({ text: "after the reload" });
    const starts: string[] = [];
    const stop = client.onNotification("turn/started", ({ threadId: id }) => starts.push(id));
    const sent = model.send({ threadId, text: "hello", images: [] }, false);
    assert.equal(model.sending.value.get(threadId)?.length, 1, "shown at once");
    // A request behind it comes back first: no turn/start went out meanwhile.
    const { turns } = await client.request("thread/read", { threadId });
    assert.deepEqual([turns.length, starts], [0, []]);
    const done = completed(client, threadId);
    release();
    assert.equal(await sent, "started");
    await done;
    stop();
    assert.deepEqual(starts, [threadId]);
  });

  test("a queued follow-up can be removed until it starts", async () => {
    const { client, model, threadId } = await made();
    const { gate, release } = held();
    server.model.enqueue({ text: ["slow ", "reply"], pauseAfter: 1, gate });
    const seen = server.model.pending;
    await client.request("turn/start", { threadId, text: "go" });
    await waitUntil("the turn's model request", () => server.model.pending < seen);
    assert.equal(await model.send({ threadId, text: "later", images: [] }, true), "queued");
    const { queue } = await client.request("thread/resume", { threadId });
    const queued = queue.followUp[0];
    assert.ok(queued, "the follow-up is in the queue");
    assert.equal(await model.removeQueued(threadId, queued.id), true);
    assert.equal(await model.removeQueued(threadId, queued.id), false, "gone already");
    const done = completed(client, threadId);
    release();
    await done;
    assert.equal((await userItems(client, threadId)).length, 1, "the removed follow-up never ran");
  });
});
