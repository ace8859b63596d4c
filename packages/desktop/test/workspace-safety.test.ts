import { strict as assert } from "node:assert";
import { join } from "node:path";
import { describe, test } from "node:test";
import { git, waitUntil, waitUntilAsync, writeFiles } from "@knightcode/testkit";
import { DESKTOP, describeViolations, NARROW, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { fileText, lines, workspaceSuite } from "./workspace-support.js";

describe("the workspace panel keeps git safe", { skip: NO_BROWSER }, () => {
  const fx = workspaceSuite();

  test("push with no remote says so, shows the command to add one, and pushes to a remote the user names", async () => {
    const root = fx.repo();
    const thread = await fx.thread(root);
    const opened = await fx.openPanel(thread.id, "Git");
    try {
      const page = opened.page;
      await page.getByRole("button", { name: "Push", exact: true }).click();
      const advice = page.getByRole("region", { name: "No remote to push to" });
      await advice.getByText(/has no remote named origin/).waitFor();
      assert.equal(await page.getByRole("alert").count(), 0, "the advice replaces a bare refusal");
      await advice.getByLabel("Its URL, to add it").fill("https://example.invalid/me/project.git");
      await advice.getByText("git remote add origin https://example.invalid/me/project.git", { exact: true }).waitFor();

      // The user adds a remote of another name in a terminal, then names it here.
      const remote = join(fx.server.home, `backup-${Date.now()}.git`);
      git(fx.server.home, "init", "-q", "--bare", "-b", "main", remote);
      git(root, "remote", "add", "backup", remote);
      await advice.getByLabel("Remote name").fill("backup");
      await advice.getByRole("button", { name: "Push to this remote" }).click();
      await page.getByRole("group", { name: "Push to a folder on this machine?" }).getByRole("button", { name: "Yes" }).click();
      const head = git(root, "rev-parse", "HEAD").trim();
      await waitUntil("backup's main at our HEAD", () => git(root, "ls-remote", "backup", "refs/heads/main").startsWith(head), WAIT_MS);
      await advice.waitFor({ state: "detached" });
      await page.getByText("backup/main · 0 ahead, 0 behind").waitFor();
    } finally {
      await opened.close();
    }
  });

  test("a hunk revert's confirmation names the hunk: its file, its lines and its counts", async () => {
    const { root, opened } = await fx.openChanges({ "a.txt": lines(20, { 2: "line two", 18: "line eighteen" }) });
    try {
      const page = opened.page;
      const hunks = page.locator('[data-path="a.txt"] .ws-hunk');
      await hunks.nth(1).waitFor();
      await hunks
        .nth(1)
        .getByRole("button", { name: /^Revert hunk/ })
        .click();
      const dialog = page.getByRole("dialog", { name: "Revert lines 15–20 of a.txt?" });
      await dialog.getByText("This hunk of a.txt (lines 15–20, +1 −1)", { exact: false }).waitFor();
      await dialog.getByRole("button", { name: "Revert" }).click();
      await waitUntil("the second hunk reverted", () => fileText(root, "a.txt") === lines(20, { 2: "line two" }), WAIT_MS);
    } finally {
      await opened.close();
    }
  });

  test("after Undo turn the last turn's hunks offer nothing, and the uncommitted view is empty", async () => {
    const root = fx.repo();
    const thread = await fx.thread(root, { approvalMode: "fullAccess" });
    fx.model.enqueue({ toolCalls: [{ name: "edit", arguments: { path: "a.txt", oldText: "line 2\n", newText: "line two\n" } }] }, { text: "done" });
    await (await fx.client.runTurn(thread.id, "Spell out line 2")).completed;
    const opened = await fx.openPanel(thread.id, "Changes");
    try {
      const page = opened.page;
      await page.getByLabel("Show").selectOption("lastTurn");
      const file = page.locator('[data-path="a.txt"]');
      await file.getByRole("button", { name: /^Revert hunk/ }).waitFor();
      await page.getByRole("button", { name: "Undo turn" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Revert" }).click();
      await waitUntil("the turn undone", () => fileText(root, "a.txt") === lines(20), WAIT_MS);
      await page.getByRole("button", { name: "Reapply turn" }).waitFor();
      await page.getByText("nothing here can be reverted or commented on", { exact: false }).waitFor();
      const panel = page.getByRole("complementary", { name: "Changes" });
      assert.equal(await panel.getByRole("button", { name: /^(Revert|Comment on|Stage|Unstage)/ }).count(), 0, "no action on a gone hunk");

      await page.getByLabel("Show").selectOption("uncommitted");
      await page.getByRole("status").filter({ hasText: "No changes in this scope." }).waitFor();
      assert.equal(await panel.locator(".ws-hunk").count(), 0);
    } finally {
      await opened.close();
    }
  });

  test("a review comment shows under its line, and is gone once sent with a message", async () => {
    const { opened, page, hunk } = await fx.commentOnLineEight("Use a digit here.");
    try {
      const note = hunk.getByRole("note", { name: "Review comment on a.txt:8" });
      await note.getByText("Use a digit here.", { exact: false }).waitFor();
      const above = await note.evaluate((el) => el.previousElementSibling?.textContent ?? "");
      assert.match(above, /line eight/, "the comment sits under the line it is on");

      fx.model.enqueue({ text: "will do" });
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("Please fix what I marked.");
      await box.press("Enter");
      await note.waitFor({ state: "detached" });
      await page.getByRole("region", { name: "Review comments to send" }).waitFor({ state: "detached" });
    } finally {
      await opened.close();
    }
  });

  for (const [name, viewport] of [
    ["desktop", DESKTOP],
    ["narrow", NARROW],
  ] as const) {
    test(`the commit form, with a draft and the no-remote advice, has no axe violations at ${name} width`, async () => {
      const root = fx.repo({ "a.txt": lines(20), "b.txt": lines(5) });
      writeFiles(root, { "a.txt": lines(20, { 5: "line five" }), "b.txt": lines(5, { 1: "line one" }), "c.txt": "new\n" });
      git(root, "add", "a.txt", "b.txt");
      const thread = await fx.thread(root);
      const opened = await fx.openPanel(thread.id, "Git", viewport);
      try {
        const page = opened.page;
        const form = page.getByRole("form", { name: "Commit" });
        await form.getByText("2 files staged are committed; 1 file with other changes stays out.").waitFor();
        await form.getByRole("button", { name: "Draft message" }).click();
        await waitUntilAsync("the draft", async () => (await form.getByLabel("Commit message").inputValue()).startsWith("Update a.txt and b.txt"), WAIT_MS);
        await page.getByRole("button", { name: "Push", exact: true }).click();
        await page.getByRole("region", { name: "No remote to push to" }).waitFor();
        await form.scrollIntoViewIfNeeded();
        const violations = await screenAndAudit(page, "workspace-git-commit");
        assert.equal(violations.length, 0, describeViolations(violations));
      } finally {
        await opened.close();
      }
    });
  }
});
