import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { waitUntil } from "@knightcode/testkit";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { composerSuite, held, sent, until } from "./composer-support.js";

describe("the composer: turns", { skip: NO_BROWSER }, () => {
  const f = composerSuite();

  test("typing and Enter starts a turn the model receives; the thread ends idle and the box is empty", async () => {
    const { threadId, opened, page } = await f.newThread();
    try {
      f.model.enqueue({ text: "Hi there" });
      const before = f.model.requests.length;
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("hello from the composer");
      await box.press("Enter");
      await waitUntil("the model to get the message", () => f.model.requests.slice(before).find((r) => sent(r).includes("hello from the composer")), WAIT_MS);
      await f.turnsEnded(threadId, 1);
      assert.equal(await box.inputValue(), "");
      await page.locator(".composer[data-busy='false']").waitFor();
    } finally {
      await opened.close();
    }
  });

  test("Escape interrupts a running turn: the server reports it interrupted and the composer is usable again", async () => {
    const { threadId, opened, page } = await f.newThread();
    const hold = held();
    try {
      const client = await f.server.client();
      const interrupted = client.waitFor("thread/turn/completed", (p) => p.threadId === threadId, { timeoutMs: WAIT_MS });
      f.model.enqueue({ text: ["working", " more"], pauseAfter: 1, gate: hold.gate });
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("a long job");
      await box.press("Enter");
      await page.getByRole("button", { name: "Interrupt" }).waitFor();
      // A follow-up waiting when the turn is interrupted is dropped by the server; its text comes back to the box.
      await box.fill("dropped follow-up");
      await box.press("Enter");
      await page.locator("[data-queue-kind='followUp']", { hasText: "dropped follow-up" }).waitFor();
      await box.press("Escape");
      assert.equal((await interrupted).turn.status, "interrupted");
      await until("the dropped follow-up back in the box", async () => (await box.inputValue()) === "dropped follow-up");
      await page.locator(".composer[data-busy='false']").waitFor();
      await page.getByRole("button", { name: "Interrupt" }).waitFor({ state: "detached" });
      // Usable again: the next message starts a turn of its own.
      f.model.enqueue({ text: "back" });
      await box.fill("after the interrupt");
      await box.press("Enter");
      await waitUntil("the next message to reach the model", () => f.model.requests.find((r) => sent(r).includes("after the interrupt")), WAIT_MS);
      await f.turnsEnded(threadId, 2);
    } finally {
      hold.release();
      await opened.close();
    }
  });

  test("Enter during a turn queues a follow-up, shown above the box, that runs as its own turn afterwards", async () => {
    const { threadId, opened, page } = await f.newThread();
    const hold = held();
    try {
      f.model.enqueue({ text: ["first", " reply"], pauseAfter: 1, gate: hold.gate }, { text: "second reply" });
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("first message");
      await box.press("Enter");
      await page.getByRole("button", { name: "Interrupt" }).waitFor();
      await box.fill("queued follow-up");
      await box.press("Enter");
      const queued = page.getByRole("list", { name: "Waiting messages" }).getByRole("listitem").filter({ hasText: "queued follow-up" });
      await queued.waitFor();
      await queued.getByRole("button", { name: /Remove queued message/ }).waitFor();
      // A second one taken back with Edit leaves the queue and returns to the box.
      await box.fill("second thoughts");
      await box.press("Enter");
      const second = page.getByRole("list", { name: "Waiting messages" }).getByRole("listitem").filter({ hasText: "second thoughts" });
      await second.getByRole("button", { name: /Edit queued message/ }).click();
      await second.waitFor({ state: "detached" });
      assert.equal(await box.inputValue(), "second thoughts");
      assert.ok(!f.model.requests.some((r) => sent(r).includes("queued follow-up")), "not sent while the first turn runs");
      hold.release();
      await waitUntil("the follow-up to reach the model", () => f.model.requests.find((r) => sent(r).includes("queued follow-up")), WAIT_MS);
      await f.turnsEnded(threadId, 2);
      const read = await (await f.server.client()).request("thread/read", { threadId });
      assert.equal(read.turns.length, 2, "the follow-up ran as a turn of its own; the edited one did not run");
      assert.ok(!f.model.requests.some((r) => sent(r).includes("second thoughts")));
      await queued.waitFor({ state: "detached" });
    } finally {
      hold.release();
      await opened.close();
    }
  });

  test("Ctrl+Enter steers the running turn: its next model request carries the text", async () => {
    const { threadId, opened, page } = await f.newThread();
    const hold = held();
    try {
      await f.steerHeldTurn(page, threadId, hold);
      const read = await (await f.server.client()).request("thread/read", { threadId });
      assert.equal(read.turns.length, 1, "the steer joined the running turn rather than starting one");
    } finally {
      hold.release();
      await opened.close();
    }
  });
});
