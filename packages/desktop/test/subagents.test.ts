import { strict as assert } from "node:assert";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { held, waitUntil } from "@knightcode/testkit";
import { describeViolations, DESKTOP, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";
import { routeByMarker, type Route } from "./subagent-routes.js";

/**
 * Sub-agents as the page shows them: under their parent in the list, as a
 * card in the parent's conversation that opens them, and with their
 * questions answerable from the parent.
 */
describe("sub-agents in the page", { skip: NO_BROWSER }, () => {
  let routes: Map<string, Route> | undefined;
  const f = desktopSuite();

  /** A parent's turn (`PARENT-<marker>`) starting one sub-agent `name`, and the sub-agent's replies. */
  function delegate(marker: string, name: string, child: Route): void {
    routes ??= routeByMarker(f.model);
    routes.set(`PARENT-${marker}`, {
      first: { toolCalls: [{ id: `call_${marker}`, name: "agent_start", arguments: { task: `TASK-${marker} please`, name } }] },
      afterTools: { text: `${marker} is done` },
    });
    routes.set(`TASK-${marker}`, child);
  }

  /** A thread in `mode`, the page open on it, and the page the only one watching it: the questions come to the page. */
  async function parentOnPage(mode: "ask" | "fullAccess") {
    const client = await f.server.client();
    const project = f.server.project({ "README.md": "# demo\n" });
    const { thread } = await client.request("thread/start", { cwd: project, approvalMode: mode });
    const opened = await f.openThread(thread.id);
    await opened.page.locator(".thread-place", { hasText: project }).waitFor();
    await client.close();
    return { project, thread, opened };
  }

  test("the sub-agent shows under its parent in the list, its card shows its answer, and the card opens it", async () => {
    const { thread, opened } = await parentOnPage("fullAccess");
    const { page } = opened;
    const { gate, release } = held();
    // The role chunk, the first words, then a pause: the sub-agent is seen working.
    delegate("LOOK", "researcher", { first: { text: ["Looking ", "it is in the README"], pauseAfter: 2, gate }, afterTools: { text: "unused" } });
    try {
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("PARENT-LOOK find it");
      await box.press("Enter");
      const card = page.getByRole("region", { name: "Sub-agent researcher" });
      await card.getByText("Looking").waitFor();
      await card.getByText("Working").waitFor();
      const nested = page.getByRole("list", { name: /^Sub-agents of / });
      const childRow = nested.locator("[data-thread-id]", { hasText: "researcher" });
      await childRow.waitFor();
      await childRow.getByText("Running").waitFor();
      // Not a row of its own at the top of the project.
      assert.equal(await page.locator(".project-group > ul > li.thread-row", { hasText: "researcher" }).count(), 0);
      release();
      await card.getByText("it is in the README").waitFor();
      await card.getByText("Done").waitFor();
      await page.locator("[data-turn-status='completed']").getByText("LOOK is done").waitFor();
      await childRow.locator(".badge-running").waitFor({ state: "detached" });
      // None of the sub-agent's own messages are in the parent's conversation.
      assert.equal(await page.locator(".item[data-item-type='userMessage']", { hasText: "TASK-LOOK" }).count(), 0);

      await page.setViewportSize(DESKTOP);
      await page.emulateMedia({ colorScheme: "light" });
      const violations = await screenAndAudit(page, "subagents-sidebar");
      assert.deepEqual(violations, [], describeViolations(violations));

      await card.getByRole("button", { name: "Open researcher" }).click();
      const childId = await childRow.getAttribute("data-thread-id");
      await page.waitForURL((url) => url.searchParams.get("thread") === childId);
      await page.locator(".item[data-item-type='userMessage']", { hasText: "TASK-LOOK please" }).waitFor();
      await page.locator(".item[data-item-type='agentMessage']", { hasText: "it is in the README" }).waitFor();
      assert.equal(await childRow.locator("[aria-current='page']").count(), 1);
      assert.notEqual(childId, thread.id);
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      release();
      await opened.close();
    }
  });

  test("a sub-agent's approval shows while its parent is open, says which sub-agent asks, and answering it lets it write", async () => {
    const { project, opened } = await parentOnPage("ask");
    const { page } = opened;
    delegate("EDIT", "writer", {
      first: { toolCalls: [{ id: "call_writer_write", name: "write", arguments: { path: "by-writer.txt", content: "from the writer\n" } }] },
      afterTools: { text: "the writer wrote it" },
    });
    try {
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("PARENT-EDIT write it");
      await box.press("Enter");
      const request = page.getByRole("group", { name: "Allow write?" });
      await request.getByText("by-writer.txt").first().waitFor();
      await request.locator(".request-from", { hasText: "Sub-agent writer asks" }).waitFor();
      await request.getByRole("button", { name: "Allow once" }).click();
      await request.waitFor({ state: "detached" });
      await waitUntil("the sub-agent's file", () => existsSync(join(project, "by-writer.txt")) || undefined, WAIT_MS);
      assert.equal(readFileSync(join(project, "by-writer.txt"), "utf8"), "from the writer\n");
      await page.getByRole("region", { name: "Sub-agent writer" }).getByText("the writer wrote it").waitFor();
      await page.locator("[data-turn-status='completed']").getByText("EDIT is done").waitFor();
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });
});
