import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { waitUntil, writeFiles } from "@knightcode/testkit";
import { describeViolations, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { fileText, lines, workspaceSuite, type WorkspaceSuite } from "./workspace-support.js";

/**
 * Review turns in the page (docs/review.md): the header's "Review changes"
 * starts one; a finding shows as a card whose suggestion applies from it,
 * or goes with the next message as a review comment.
 */

/** A repository with line 8 of a.txt changed, a thread there, and the model's finding on that line scripted for the next review. */
async function reviewable(fx: WorkspaceSuite): Promise<{ root: string; threadId: string }> {
  const root = fx.repo();
  writeFiles(root, { "a.txt": lines(20, { 8: "line eight" }) });
  const thread = await fx.thread(root);
  const diff = await fx.client.request("thread/diff/read", { threadId: thread.id, scope: "uncommitted" });
  const hunkId = diff.files[0]!.hunks[0]!.id;
  const finding = {
    path: "a.txt",
    hunkId,
    startLine: 8,
    endLine: 8,
    severity: "medium",
    title: "Use a digit",
    body: "Line 8 spells its number.",
    suggestion: "line 8\n",
  };
  fx.model.enqueue({ toolCalls: [{ id: "f1", name: "report_finding", arguments: finding }] }, { text: "Reviewed." });
  return { root, threadId: thread.id };
}

describe("review turns in the page", { skip: NO_BROWSER }, () => {
  const fx = workspaceSuite();

  test("review the uncommitted changes: the finding's card shows, its suggestion applies, and the file changes", async () => {
    const { root, threadId } = await reviewable(fx);
    const opened = await fx.openThread(threadId);
    try {
      const page = opened.page;
      const requests = fx.model.requests.length;
      await page.getByRole("button", { name: "Review changes" }).click();
      const dialog = page.getByRole("dialog", { name: "Review changes" });
      await dialog.getByLabel("Uncommitted changes").check();
      await dialog.getByLabel("Focus (optional)").fill("the names of numbers");
      await dialog.getByRole("button", { name: "Start review" }).click();
      const card = page.getByRole("article", { name: "Use a digit" });
      await card.waitFor({ timeout: WAIT_MS });
      assert.match(JSON.stringify(fx.model.requests[requests]!.body.messages), /the names of numbers/);
      await card.getByText("medium", { exact: true }).waitFor();
      await card.getByText("a.txt:8", { exact: true }).waitFor();
      await card.getByText("Line 8 spells its number.").waitFor();
      assert.equal(await card.getByLabel("Suggested change").textContent(), "-line eight\n+line 8\n", "the lines the review read, then the suggestion");
      assert.deepEqual(describeViolations(await screenAndAudit(page, "review-finding")), "");

      await card.getByRole("button", { name: "Apply suggestion" }).click();
      await card.getByRole("status").getByText("Applied to a.txt.").waitFor();
      await waitUntil("the suggestion written", () => fileText(root, "a.txt") === lines(20), WAIT_MS);
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });

  test("a finding sent as a review comment with the next message; applying it after the file changed is refused, clearly", async () => {
    const { root, threadId } = await reviewable(fx);
    const opened = await fx.openThread(threadId);
    try {
      const page = opened.page;
      await page.getByRole("button", { name: "Review changes" }).click();
      await page.getByRole("dialog", { name: "Review changes" }).getByRole("button", { name: "Start review" }).click();
      const card = page.getByRole("article", { name: "Use a digit" });
      await card.waitFor({ timeout: WAIT_MS });

      await card.getByRole("button", { name: "Comment" }).click();
      await page.locator(".composer-comments", { hasText: "1 review comment goes with this message" }).waitFor();
      let release = () => {};
      const gate = new Promise<void>((resolve) => (release = resolve));
      fx.model.enqueue({ text: ["will", " do"], pauseAfter: 1, gate });
      const before = fx.model.requests.length;
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("Please fix what the review found.");
      await box.press("Enter");
      const sent = await waitUntil("the model request", () => fx.model.requests[before], WAIT_MS);
      const text = JSON.stringify(sent.body.messages);
      assert.match(text, /a\.txt, new lines? 8/);
      assert.match(text, /\+line eight/);
      assert.match(text, /Use a digit \(medium\): Line 8 spells its number\./);
      await page.locator(".composer-comments").waitFor({ state: "detached" });

      // The turn holds the checkout: Apply waits for its end and says so.
      const apply = card.getByRole("button", { name: "Apply suggestion" });
      await card.getByText("The suggestion can be applied once the turn ends.").waitFor();
      assert.equal(await apply.isDisabled(), true, "Apply is disabled while the turn runs");
      assert.equal(await apply.getAttribute("aria-describedby"), await card.locator(".review-wait").getAttribute("id"));
      writeFiles(root, { "a.txt": lines(20, { 8: "line eight", 9: "line nine" }) });
      release();
      await card.locator(".review-wait").waitFor({ state: "detached", timeout: WAIT_MS });
      await apply.click();
      await card.getByRole("alert").getByText("The file changed since the review: the suggestion no longer fits").waitFor();
      assert.equal(fileText(root, "a.txt"), lines(20, { 8: "line eight", 9: "line nine" }));
    } finally {
      await opened.close();
    }
  });
});
