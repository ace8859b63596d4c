import { strict as assert } from "node:assert";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { signal } from "@preact/signals";
import type { AppServerClient } from "@knightcode/app-server-client";
import { waitUntil } from "@knightcode/testkit";
import { createRequestsModel, type PendingCard, type RequestsModel } from "../src/features/requests/model.js";
import { asConnection, startInProcessServer, type InProcessServer } from "./feature-model-support.js";

let callSeq = 0;
const write = (path: string) => ({ id: `call_model_${++callSeq}`, name: "write", arguments: { path, content: "hello\n" } });

/** The requests model over a real in-process server: no page, no browser. */
describe("the requests model", () => {
  let server: InProcessServer;
  before(async () => {
    server = await startInProcessServer();
  });
  after(() => server.close());

  /** A model installed on a fresh client, as a page makes one; the caller stops it. */
  async function installed(): Promise<{ client: AppServerClient; model: RequestsModel; toasts: string[]; stop: () => void }> {
    const client = await server.client();
    const connection = asConnection(client);
    const toasts: string[] = [];
    const model = createRequestsModel({ conn: () => connection, activeThreadId: signal(undefined), toast: (text) => toasts.push(text) });
    return { client, model, toasts, stop: model.install() };
  }

  const approvalOf = (model: RequestsModel, threadId: string) =>
    model
      .threadCards(threadId)
      .value.find((card): card is Extract<PendingCard, { method: "item/toolCall/requestApproval" }> => card.method === "item/toolCall/requestApproval");

  test("an approval becomes a card; answering it lets the tool run and takes the card away", async () => {
    const { client, model, toasts, stop } = await installed();
    try {
      const { thread } = await client.request("thread/start", { cwd: server.project, approvalMode: "ask" });
      server.model.enqueue({ toolCalls: [write("approved.txt")] }, { text: "written" });
      const completed = client.waitFor("turn/completed");
      await client.request("turn/start", { threadId: thread.id, text: "write it" });
      const card = await waitUntil("the approval's card", () => approvalOf(model, thread.id));
      assert.equal(card.live, true);
      assert.ok(card.params.decisions.includes("accept"));
      assert.deepEqual(toasts, ["Another thread is waiting for your answer."], "a question from a thread not open is announced");
      card.answer({ decision: "accept" });
      assert.equal(model.threadCards(thread.id).value.length, 0);
      await completed;
      assert.equal(readFileSync(join(server.project, "approved.txt"), "utf8"), "hello\n");
    } finally {
      stop();
    }
  });

  test("serverRequest/cancelled drops the card", async () => {
    const { client, model, stop } = await installed();
    try {
      const { thread } = await client.request("thread/start", { cwd: server.project, approvalMode: "ask" });
      // No reply after the tool: the turn is interrupted while its question waits.
      server.model.enqueue({ toolCalls: [write("never.txt")] });
      await client.request("turn/start", { threadId: thread.id, text: "write it" });
      await waitUntil("the approval's card", () => approvalOf(model, thread.id));
      await client.request("turn/interrupt", { threadId: thread.id });
      await waitUntil("the withdrawn card to go", () => model.threadCards(thread.id).value.length === 0);
      assert.equal(existsSync(join(server.project, "never.txt")), false);
    } finally {
      stop();
    }
  });

  test("after a reload, the threads serverRequest/list names are adopted and their questions asked again", async () => {
    // The page before the reload: asked, then gone without answering (its requests are held).
    const before = await installed();
    const { thread } = await before.client.request("thread/start", { cwd: server.project, approvalMode: "ask" });
    server.model.enqueue({ toolCalls: [write("adopted.txt")] }, { text: "written" });
    await before.client.request("turn/start", { threadId: thread.id, text: "write it" });
    await waitUntil("the first page's card", () => approvalOf(before.model, thread.id));
    before.stop();
    await before.client.close();

    // The reloaded page subscribes to nothing; installing the model adopts the waiting thread.
    const reloaded = await installed();
    try {
      const completed = reloaded.client.waitFor("turn/completed");
      const card = await waitUntil("the card asked again", () => approvalOf(reloaded.model, thread.id));
      card.answer({ decision: "accept" });
      await completed;
      assert.equal(readFileSync(join(server.project, "adopted.txt"), "utf8"), "hello\n");
    } finally {
      reloaded.stop();
    }
  });
});
