import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { waitUntil } from "@knightcode/testkit";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { askThroughPage, call } from "./requests-helpers.js";
import { desktopSuite } from "./support/suite.js";

describe("a reload while a thread waits on the user (issue 29)", { skip: NO_BROWSER }, () => {
  const f = desktopSuite();

  test("the approval of a background thread survives F5: the reloaded page is asked again, and its answer runs the command", async () => {
    const client = await f.server.client();
    const project = f.server.project();
    const { thread: waiting } = await client.request("thread/start", { cwd: project, approvalMode: "ask" });
    const { thread: other } = await client.request("thread/start", { cwd: project });
    await client.close();
    const opened = await f.openThread(waiting.id);
    const { page } = opened;
    try {
      await page.locator(".thread-place", { hasText: project }).waitFor();
      f.model.enqueue({ toolCalls: [call("bash", { command: "touch answered-after-reload.txt" })] }, { text: "done" });
      await askThroughPage(f.server, waiting.id);
      await page.getByRole("group", { name: "Allow bash?" }).waitFor();

      // The user moves to another thread: the one that asks goes on in the background, then the page reloads.
      await page.locator(`nav.sidebar [data-thread-id="${other.id}"]`).click();
      await page.waitForURL((url) => url.href.includes(other.id));
      await page.reload();
      await page.waitForSelector("html[data-ready='true']");

      const watcher = await f.server.client();
      const listed = await watcher.request("serverRequest/list", {});
      assert.deepEqual(
        listed.requests.map((r) => [r.threadId, r.method]),
        [[waiting.id, "item/toolCall/requestApproval"]],
        "the request waited through the reload",
      );
      await watcher.close();

      const row = page.locator(`nav.sidebar [data-thread-id="${waiting.id}"]`);
      await row.getByText("Waiting on you").waitFor();
      await row.click();
      const card = page.getByRole("group", { name: "Allow bash?" });
      await card.getByRole("button", { name: "Allow once" }).click();
      await waitUntil("the command to run", () => existsSync(join(project, "answered-after-reload.txt")) || undefined, WAIT_MS);
      await card.waitFor({ state: "detached" });
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });
});
