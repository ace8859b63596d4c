import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { WebSocketRoute } from "playwright-core";
import { waitUntil } from "@knightcode/testkit";
import { DESKTOP } from "./support/browser.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { askThroughPage, call } from "./requests-helpers.js";
import { desktopSuite } from "./support/suite.js";

describe("request cards across a dropped connection", { skip: NO_BROWSER }, () => {
  const f = desktopSuite();

  test("the question asked again after a reconnection keeps its one card, with what the user typed", async () => {
    const client = await f.server.client();
    const project = f.server.project();
    const { thread } = await client.request("thread/start", { cwd: project, approvalMode: "ask" });
    // The page's socket goes through Playwright, so the test can drop it while the server stays up.
    const context = await f.browser.newContext({ viewport: DESKTOP, reducedMotion: "reduce" });
    const sockets: WebSocketRoute[] = [];
    await context.routeWebSocket(/^ws:\/\/127\.0\.0\.1/, (route) => {
      sockets.push(route);
      route.connectToServer();
    });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    try {
      await page.goto(f.server.threadUrl(thread.id));
      await page.waitForSelector("html[data-ready='true']");
      await page.locator(".thread-place", { hasText: project }).waitFor();
      const bash = call("bash", { command: "touch reconnected.txt" });
      f.model.enqueue({ toolCalls: [bash] }, { text: "done" });
      await askThroughPage(f.server, thread.id);
      const card = page.getByRole("group", { name: "Allow bash?" });
      await card.getByLabel("Message for the agent if you decline (optional)").fill("typed before the drop");
      // Another subscriber holds the question while the page is away (with none, the server would cancel it).
      const holder = await f.server.client();
      let heldElsewhere = 0;
      let withdrawnElsewhere = false;
      holder.onRequest("item/toolCall/requestApproval", (_params, { signal }) => {
        heldElsewhere++;
        signal.addEventListener("abort", () => (withdrawnElsewhere = true));
        return new Promise<never>(() => undefined);
      });
      await holder.request("thread/resume", { threadId: thread.id });
      const before = sockets.length;
      await sockets.at(-1)!.close();
      // The server moved the question to the holder while the page was away, and back when it returned.
      await waitUntil("the holder to be asked", () => heldElsewhere > 0 || undefined, WAIT_MS);
      await waitUntil("the page to reconnect", () => sockets.length > before || undefined, WAIT_MS);
      await waitUntil("the holder's ask to be withdrawn", () => withdrawnElsewhere || undefined, WAIT_MS);
      await page.locator("[data-request-id]:not(.request-stale)").waitFor();
      assert.equal(await page.locator("[data-request-id]").count(), 1, "one card, not two");
      assert.equal(await card.getByLabel("Message for the agent if you decline (optional)").inputValue(), "typed before the drop");
      await card.getByRole("button", { name: "Allow once" }).click();
      await waitUntil("the command to run", () => existsSync(join(project, "reconnected.txt")) || undefined, WAIT_MS);
      await card.waitFor({ state: "detached" });
      assert.equal(heldElsewhere, 1);
    } finally {
      await context.close();
    }
  });
});
