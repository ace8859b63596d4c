import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { NO_BROWSER } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

describe("a server restart mid-thread", { skip: NO_BROWSER }, () => {
  const f = desktopSuite();

  test("the page reconnects, keeps the open thread and its history, reloads the sidebar, and follows the next turn", async () => {
    const client = await f.server.client();
    const project = f.server.project({ "README.md": "# restart\n" }, "restart");
    const { thread } = await client.request("thread/start", { cwd: project });
    await client.request("thread/name/set", { threadId: thread.id, name: "before the restart" });
    f.model.enqueue({ text: "first answer" });
    await (await client.runTurn(thread.id, "first question")).completed;

    const opened = await f.openThread(thread.id);
    const { page } = opened;
    try {
      await page.getByRole("heading", { name: "before the restart" }).waitFor();
      await page.locator(`nav.sidebar[data-loaded='true'] [data-thread-id="${thread.id}"]`).waitFor();
      const generationBefore = await page.evaluate(() => document.querySelector(".thread-layout")?.getAttribute("data-generation") ?? null);

      await f.server.stop();
      await page.getByRole("status").filter({ hasText: "Reconnecting" }).waitFor();
      // While the server is away, what the page showed stays.
      await page.getByRole("heading", { name: "before the restart" }).waitFor();

      await f.restart();
      await page.getByRole("status").filter({ hasText: "Reconnecting" }).waitFor({ state: "detached" });
      await page.getByRole("heading", { name: "before the restart" }).waitFor();
      await page.locator(`section.transcript[data-thread="${thread.id}"]`).waitFor();
      // The thread was resumed on the new server: the page holds a fresh load with the turn from before.
      await page.waitForFunction((before) => {
        const layout = document.querySelector(".thread-layout");
        return layout?.getAttribute("data-generation") !== before && layout?.getAttribute("data-turns") === "1";
      }, generationBefore);
      await page.locator(`nav.sidebar[data-loaded='true'] [data-thread-id="${thread.id}"]`).waitFor();
      assert.equal(await page.locator(".toast-error").count(), 0, "the outage raised no error toast");

      // A new turn on the restarted server shows in the sidebar as it runs and when it ends.
      const after = await f.server.client();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      f.model.enqueue({ text: ["second", " answer"], pauseAfter: 1, gate });
      const run = await after.runTurn(thread.id, "second question");
      await page.locator(`[data-thread-id="${thread.id}"][data-status="running"]`).waitFor();
      release();
      const turn = await run.completed;
      assert.equal(turn.status, "completed");
      await page.locator(`[data-thread-id="${thread.id}"]:not([data-status])`).waitFor();
      // The browser logs each refused attempt while the server is away; nothing else may go wrong.
      const unexpected = opened.consoleErrors.filter((text) => !text.includes("ERR_CONNECTION_REFUSED") && !text.includes("WebSocket"));
      assert.deepEqual(unexpected, []);
    } finally {
      await opened.close();
    }
  });
});
