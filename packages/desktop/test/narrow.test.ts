import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import type { Locator, Page } from "playwright-core";
import { describeViolations, NARROW, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER } from "./support/desktop.js";
import { askThroughPage, call, waitForToolResult } from "./requests-helpers.js";
import { desktopSuite } from "./support/suite.js";

/** Whether the element is inside the window and nothing covers its middle: a user can see and press it. */
async function reachable(page: Page, target: Locator): Promise<boolean> {
  const box = await target.boundingBox();
  const size = page.viewportSize()!;
  if (!box || box.y < 0 || box.x < 0 || box.y + box.height > size.height || box.x + box.width > size.width) return false;
  return target.evaluate((el, at) => el.contains(document.elementFromPoint(at.x, at.y)), { x: box.x + box.width / 2, y: box.y + box.height / 2 });
}

describe("a narrow window (420 px)", { skip: NO_BROWSER }, () => {
  const f = desktopSuite();

  test("a long approval card keeps its buttons on screen; screenshot and axe", async () => {
    const client = await f.server.client();
    const project = f.server.project({});
    const { thread } = await client.request("thread/start", { cwd: project, approvalMode: "ask" });
    const opened = await f.openThread(thread.id, NARROW);
    const { page } = opened;
    try {
      await page.getByLabel("Message", { exact: true }).waitFor();
      // A diff far taller than the window.
      const content = Array.from({ length: 120 }, (_, i) => `line ${i + 1}`).join("\n");
      const write = call("write", { path: "long.txt", content: `${content}\n` });
      f.model.enqueue({ toolCalls: [write] }, { text: "written" });
      await askThroughPage(f.server, thread.id);
      const card = page.getByRole("group", { name: "Allow write?" });
      await card.locator(".diff-add").first().waitFor();
      assert.ok((await card.locator(".diff-add").count()) > 40, "the card is long");
      const buttons = card.locator("[data-decision]");
      for (const button of await buttons.all()) assert.ok(await reachable(page, button), `${await button.textContent()} is on screen`);
      // Scrolled back up to the card's title with the wheel, they stay put.
      const title = card.getByRole("heading", { name: "Allow write?" });
      const first = (await buttons.first().boundingBox())!;
      await page.mouse.move(first.x + first.width / 2, first.y + first.height / 2);
      for (let i = 0; i < 12 && !(await reachable(page, title)); i++) await page.mouse.wheel(0, -300);
      assert.ok(await reachable(page, title), "the card's title is in view");
      for (const button of await buttons.all()) assert.ok(await reachable(page, button), `${await button.textContent()} is on screen after scrolling`);
      const violations = await screenAndAudit(page, "narrow-approval-card");
      assert.deepEqual(violations, [], describeViolations(violations));
      await card.getByRole("button", { name: "Allow once" }).click();
      await waitForToolResult(f.model, write.id);
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });

  test("the changes and git panels open full screen over the transcript; their button closes them", async () => {
    const client = await f.server.client();
    const { thread } = await client.request("thread/start", { cwd: f.server.project({ "a.txt": "a\n" }) });
    const opened = await f.openThread(thread.id, NARROW);
    const { page } = opened;
    try {
      await page.getByLabel("Message", { exact: true }).waitFor();
      for (const [button, name] of [
        ["Changes (Ctrl+Shift+D)", "Changes"],
        ["Git (Ctrl+Shift+G)", "Git"],
      ] as const) {
        const toggle = page.getByRole("button", { name: button });
        await toggle.click();
        const side = page.getByRole("complementary", { name });
        await side.waitFor();
        const box = (await side.boundingBox())!;
        assert.ok(box.width >= NARROW.width - 1, `${name} spans the width: ${box.width}`);
        assert.ok(box.height >= NARROW.height * 0.7, `${name} takes the height: ${box.height}`);
        assert.equal(await page.getByLabel("Message", { exact: true }).isVisible(), false, "the composer is under the panel");
        assert.ok(await reachable(page, toggle), `the ${name} button stays reachable to close it`);
        const violations = await screenAndAudit(page, `narrow-panel-${name.toLowerCase()}`);
        assert.deepEqual(violations, [], describeViolations(violations));
        await toggle.click();
        await side.waitFor({ state: "detached" });
      }
      await page.getByLabel("Message", { exact: true }).waitFor();
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });
});
