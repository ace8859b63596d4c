import { strict as assert } from "node:assert";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { ScriptedModelServer } from "@knightcode/testkit";
import { launchBrowser, openPage } from "./support/browser.js";
import { DesktopServer, NO_BROWSER } from "./support/desktop.js";

describe("a server restart mid-thread", { skip: NO_BROWSER }, () => {
  let browser: Browser;
  let server: DesktopServer;
  let model: ScriptedModelServer;
  before(async () => {
    model = await ScriptedModelServer.start();
    server = await DesktopServer.start({ model });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.dispose();
    await model?.close();
  });

  test("the page reconnects, keeps the open thread and its history, reloads the sidebar, and follows the next turn", async () => {
    const client = await server.client();
    const project = server.project({ "README.md": "# restart\n" }, "restart");
    const { thread } = await client.request("thread/start", { cwd: project });
    await client.request("thread/name/set", { threadId: thread.id, name: "before the restart" });
    model.enqueue({ text: "first answer" });
    await (await client.runTurn(thread.id, "first question")).completed;

    const opened = await openPage(browser, server, undefined, server.threadUrl(thread.id));
    const { page } = opened;
    try {
      await page.getByRole("heading", { name: "before the restart" }).waitFor();
      await page.locator(`nav.sidebar[data-loaded='true'] [data-thread-id="${thread.id}"]`).waitFor();
      const generationBefore = await page.evaluate(() => document.querySelector(".thread-layout")?.getAttribute("data-generation") ?? null);

      await server.stop();
      await page.getByRole("status").filter({ hasText: "Reconnecting" }).waitFor();
      // While the server is away, what the page showed stays.
      await page.getByRole("heading", { name: "before the restart" }).waitFor();

      server = await DesktopServer.start({ model, home: server.home, port: server.port, token: server.token });
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
      const after = await server.client();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      model.enqueue({ text: ["second", " answer"], pauseAfter: 1, gate });
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
