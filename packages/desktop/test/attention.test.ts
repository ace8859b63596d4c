import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { waitUntilAsync } from "@knightcode/testkit";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { call, waitForToolResult } from "./requests-helpers.js";
import { desktopSuite } from "./support/suite.js";

/** Stands in for the operating system's notifications: records what the page raises and whether it asked. */
const FAKE_NOTIFICATIONS = `
  window.__asked = 0;
  window.__shown = [];
  window.Notification = class {
    static permission = "default";
    static async requestPermission() {
      window.__asked++;
      window.Notification.permission = "granted";
      return "granted";
    }
    constructor(title, options) {
      window.__shown.push({ title, body: options && options.body });
    }
    close() {}
  };
`;

describe("attention: the tab title and notifications", { skip: NO_BROWSER }, () => {
  const f = desktopSuite();

  test("while a background thread waits on an approval the title counts it; notifications, once turned on, say so", async () => {
    const client = await f.server.client();
    const project = f.server.project({});
    const open = (await client.request("thread/start", { cwd: project })).thread;
    const background = (await client.request("thread/start", { cwd: project, approvalMode: "ask" })).thread;
    await client.request("thread/name/set", { threadId: background.id, name: "Background work" });
    const opened = await f.openThread(open.id);
    const { page } = opened;
    try {
      await opened.context.addInitScript(FAKE_NOTIFICATIONS);
      await page.reload();
      await page.waitForSelector("html[data-ready='true']");
      assert.equal(await page.title(), "KnightCode");
      // Turned on by the user, in the page's settings: only then is the browser asked.
      assert.equal(await page.evaluate(() => (window as unknown as { __asked: number }).__asked), 0);
      await page.getByRole("button", { name: "Settings" }).click();
      await page.getByRole("switch", { name: /^Notify me/ }).check();
      await waitUntilAsync(
        "the permission to be asked",
        async () => (await page.evaluate(() => (window as unknown as { __asked: number }).__asked)) === 1,
        WAIT_MS,
      );
      await page.getByRole("button", { name: "Back to threads" }).click();

      // A Node connection starts the background turn and holds its approval.
      let answer!: (decision: { decision: "accept" }) => void;
      const asked = new Promise<{ decision: "accept" }>((resolve) => (answer = resolve));
      client.onRequest("item/toolCall/requestApproval", () => asked);
      const write = call("write", { path: "waited.txt", content: "x\n" });
      f.model.enqueue({ toolCalls: [write] }, { text: "done" });
      await client.request("turn/start", { threadId: background.id, text: "go" });
      await waitUntilAsync("the title to count the waiting thread", async () => (await page.title()) === "(1) KnightCode", WAIT_MS);
      const shown = () => page.evaluate(() => (window as unknown as { __shown: Array<{ title: string; body: string }> }).__shown);
      await waitUntilAsync(
        "a notification that it waits",
        async () => (await shown()).some((n) => n.title === "Background work" && n.body === "Waiting on you"),
        WAIT_MS,
      );

      answer({ decision: "accept" });
      await waitForToolResult(f.model, write.id);
      await waitUntilAsync("the title to drop the count", async () => (await page.title()) === "KnightCode", WAIT_MS);
      await waitUntilAsync(
        "a notification that it finished",
        async () => (await shown()).some((n) => n.title === "Background work" && n.body === "Finished"),
        WAIT_MS,
      );
      // The open thread is not a background one: its turn raises nothing. A background turn after it is the
      // marker: the page hears of both in order, so once the marker's notification is there, the other would be too.
      f.model.enqueue({ text: "here" });
      await client.request("turn/start", { threadId: open.id, text: "hi" });
      await page.getByText("here").first().waitFor();
      f.model.enqueue({ text: "again" });
      await client.request("turn/start", { threadId: background.id, text: "more" });
      await waitUntilAsync("the marker's notification", async () => (await shown()).filter((n) => n.body === "Finished").length === 2, WAIT_MS);
      assert.deepEqual(
        (await shown()).map((n) => n.title),
        ["Background work", "Background work", "Background work"],
      );
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });
});
