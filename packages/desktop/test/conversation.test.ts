import { strict as assert } from "node:assert";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { waitUntil } from "@knightcode/testkit";
import { describeViolations, DESKTOP, NARROW, openPage } from "./support/browser.js";
import { screenAndAudit } from "./support/browser.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

/**
 * The whole loop through the page alone, as a user drives it: a thread
 * started from the sidebar, a message typed in the composer, the write
 * approved (or declined) on its card, and the outcome in the transcript.
 */
describe("a conversation in the page", { skip: NO_BROWSER }, () => {
  const f = desktopSuite();

  async function startThreadFromSidebar(project: string) {
    const opened = await openPage(f.browser, f.server);
    const { page } = opened;
    await page
      .getByRole("button", { name: /^New thread/ })
      .first()
      .click();
    const dialog = page.getByRole("dialog", { name: "New thread" });
    await dialog.getByLabel("Project folder").fill(project);
    await dialog.getByRole("button", { name: "Start thread" }).click();
    await page.locator(".thread-place", { hasText: project }).waitFor();
    return opened;
  }

  test("a tool call approved from its card: the file is written and the transcript shows the call and the answer", async () => {
    const project = f.server.project({ "README.md": "# demo\n" });
    const opened = await startThreadFromSidebar(project);
    const { page } = opened;
    try {
      f.model.enqueue(
        {
          reasoning: "I will write the notes.",
          toolCalls: [{ id: "call_write", name: "write", arguments: { path: "NOTES.md", content: "Read the README.\n" } }],
        },
        { text: ["Wrote ", "**NOTES.md**", " for you."] },
      );
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("Leave a note, please.");
      await box.press("Enter");
      const card = page.locator("[data-request-id]");
      await card.getByText("NOTES.md").first().waitFor();
      // The decisions come from the server's offer, in its order.
      const offered = await card.locator("[data-decision]").evaluateAll((buttons) => buttons.map((b) => b.getAttribute("data-decision")));
      assert.ok(offered.includes("accept") && offered.includes("decline"), JSON.stringify(offered));
      for (const viewport of [DESKTOP, NARROW]) {
        await page.setViewportSize(viewport);
        const violations = await screenAndAudit(page, "conversation-approval");
        assert.deepEqual(violations, [], describeViolations(violations));
      }
      await page.setViewportSize(DESKTOP);
      await card.locator("[data-decision='accept']").click();
      await card.waitFor({ state: "detached" });
      const turn = page.locator("[data-turn-status='completed']");
      await turn.getByText("for you.").waitFor();
      await turn.locator("strong", { hasText: "NOTES.md" }).waitFor();
      assert.equal(await turn.locator("[data-item-type='toolCall'] .tool-call.status-completed").count(), 1);
      assert.equal(await turn.locator("[data-item-type='reasoning'] details").evaluate((d) => (d as HTMLDetailsElement).open), false);
      assert.equal(readFileSync(join(project, "NOTES.md"), "utf8"), "Read the README.\n");
      // The sidebar names the thread after the first message and shows it idle.
      await page.locator("nav.sidebar [data-thread-id]", { hasText: "Leave a note" }).waitFor();
      const violations = await screenAndAudit(page, "conversation-done");
      assert.deepEqual(violations, [], describeViolations(violations));
      assert.deepEqual(opened.consoleErrors, []);
      assert.deepEqual(opened.foreignRequests, []);
    } finally {
      await opened.close();
    }
  });

  test("a decline with a message: nothing is written and the model reads why", async () => {
    const project = f.server.project();
    const opened = await startThreadFromSidebar(project);
    const { page } = opened;
    try {
      f.model.enqueue(
        { toolCalls: [{ id: "call_rm", name: "write", arguments: { path: "gone.txt", content: "x" } }] },
        { text: "Understood, I left it alone." },
      );
      const before = f.model.requests.length;
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("Make gone.txt");
      await box.press("Enter");
      const card = page.locator("[data-request-id]");
      await card.getByLabel(/Message for the agent if you decline/).fill("Not in this folder, please.");
      await card.locator("[data-decision='decline']").click();
      await page.getByText("Understood, I left it alone.").waitFor();
      const followUp = await waitUntil("the model request after the decline", () => f.model.requests[before + 1], WAIT_MS);
      assert.match(JSON.stringify(followUp.body.messages), /Not in this folder, please\./);
      assert.equal(existsSync(join(project, "gone.txt")), false);
      await page.locator("[data-item-type='toolCall'] .tool-call.status-declined").waitFor();
    } finally {
      await opened.close();
    }
  });
});
