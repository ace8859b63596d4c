import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { waitUntil, waitUntilAsync } from "@knightcode/testkit";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { composerSuite, sent, until } from "./composer-support.js";

describe("the composer: pickers, drafts and the connection", { skip: NO_BROWSER }, () => {
  const f = composerSuite();

  test("the pickers list the scripted models and change the server-side thread's model, thinking level and approval mode", async () => {
    const { threadId, opened, page } = await f.newThread();
    try {
      await page.getByRole("button", { name: /^Model / }).click();
      const list = page.getByRole("listbox", { name: "Models" });
      await list.getByRole("option", { name: /scripted-reasoner/ }).waitFor();
      assert.ok((await list.getByRole("option").allTextContents()).some((t) => t.startsWith("scripted-model")));
      await list.getByRole("option", { name: /scripted-reasoner/ }).click();
      const thinking = page.getByLabel("Thinking", { exact: true });
      await thinking.locator("option", { hasText: "high" }).first().waitFor({ state: "attached" });
      await until("the thinking picker to be enabled", () => thinking.isEnabled());
      await thinking.selectOption("high");
      await page.getByLabel("Approvals", { exact: true }).selectOption("ask");
      await until(
        "the page to reflect the settings",
        async () => (await thinking.inputValue()) === "high" && (await page.getByLabel("Approvals", { exact: true }).inputValue()) === "ask",
      );
      const client = await f.server.client();
      const { thread } = await client.request("thread/resume", { threadId });
      assert.deepEqual(thread.model, { provider: "scripted", id: "scripted-reasoner" });
      assert.equal(thread.thinkingLevel, "high");
      assert.equal(thread.approvalMode, "ask");
    } finally {
      await opened.close();
    }
  });

  test("the draft stays with its thread: another thread starts empty, and coming back (a reload too) finds it", async () => {
    const { threadId, opened, page } = await f.newThread();
    try {
      const other = (await (await f.server.client()).request("thread/start", { cwd: f.project })).thread.id;
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("half a thought");
      await page.goto(f.server.threadUrl(other));
      await page.locator(`.composer[data-thread='${other}']`).waitFor();
      assert.equal(await box.inputValue(), "");
      await box.fill("another draft");
      await page.goto(f.server.threadUrl(threadId));
      await page.locator(`.composer[data-thread='${threadId}']`).waitFor();
      assert.equal(await box.inputValue(), "half a thought");
      await page.reload();
      await page.locator(`.composer[data-thread='${threadId}']`).waitFor();
      assert.equal(await box.inputValue(), "half a thought");
    } finally {
      await opened.close();
    }
  });

  test("/new, sent like any message, moves the page to the thread it starts", async () => {
    const { threadId, opened, page } = await f.newThread();
    try {
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("/new");
      await box.press("Enter");
      await until("the page to move to the new thread", async () => {
        const now = new URL(page.url()).searchParams.get("thread");
        return now !== null && now !== threadId;
      });
      await page.locator(`.composer:not([data-thread='${threadId}'])`).waitFor();
    } finally {
      await opened.close();
    }
  });

  // Last: it restarts the server the other tests share.
  test("while the connection is down the draft stays editable and sending waits; after a restart it sends", async () => {
    const { threadId, opened, page } = await f.newThread();
    try {
      const box = page.getByLabel("Message", { exact: true });
      const sendButton = page.getByRole("button", { name: "Send", exact: true });
      await f.server.stop();
      await until("Send to be disabled", async () => !(await sendButton.isEnabled()));
      await box.fill("written offline");
      await box.press("Enter");
      assert.equal(await box.inputValue(), "written offline", "nothing was taken while offline");
      await f.restart();
      // Reconnecting resumes the open thread in a server that has just started, loading its runtime from
      // nothing: on a loaded machine that alone has taken most of the usual wait.
      await waitUntilAsync("Send to be enabled again", () => sendButton.isEnabled(), 3 * WAIT_MS);
      f.model.enqueue({ text: "online again" });
      await box.press("Enter");
      await waitUntil("the message to reach the model", () => f.model.requests.find((r) => sent(r).includes("written offline")), WAIT_MS);
      await f.turnsEnded(threadId, 1);
    } finally {
      await opened.close();
    }
  });
});
