import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { git, waitUntil } from "@knightcode/testkit";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { fileText, lines, workspaceSuite } from "./workspace-support.js";

describe("the workspace panel's diff view", { skip: NO_BROWSER }, () => {
  const fx = workspaceSuite();

  test("a hunk reverted: after confirming, that hunk is gone on disk, the other stays, and the view shows one hunk", async () => {
    const { root, opened } = await fx.openChanges({ "a.txt": lines(20, { 2: "line two", 18: "line eighteen" }) });
    try {
      const page = opened.page;
      const hunks = page.locator('[data-path="a.txt"] .ws-hunk');
      await hunks.nth(1).waitFor();
      await hunks
        .first()
        .getByRole("button", { name: /^Revert hunk/ })
        .click();
      await page.getByRole("dialog").getByRole("button", { name: "Revert" }).click();
      await waitUntil("the first hunk reverted on disk", () => fileText(root, "a.txt") === lines(20, { 18: "line eighteen" }), WAIT_MS);
      await hunks.nth(1).waitFor({ state: "detached" });
      await hunks.first().getByText("line eighteen").waitFor();
      assert.equal(await hunks.count(), 1);
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });

  test("stage and unstage a hunk: git's index follows", async () => {
    const { root, opened } = await fx.openChanges({ "a.txt": lines(20, { 2: "line two", 18: "line eighteen" }) });
    try {
      const page = opened.page;
      await page.getByLabel("Show").selectOption("unstaged");
      const hunks = page.locator('[data-path="a.txt"] .ws-hunk');
      await hunks.nth(1).waitFor();
      await hunks
        .first()
        .getByRole("button", { name: /^Stage hunk/ })
        .click();
      await waitUntil("the first hunk staged", () => /\+line two/.test(git(root, "diff", "--cached")), WAIT_MS);
      assert.doesNotMatch(git(root, "diff", "--cached"), /line eighteen/);
      await hunks.nth(1).waitFor({ state: "detached" });

      await page.getByLabel("Show").selectOption("staged");
      await hunks.first().getByText("line two").waitFor();
      assert.equal(await hunks.count(), 1);
      await hunks
        .first()
        .getByRole("button", { name: /^Unstage hunk/ })
        .click();
      await waitUntil("the index back to HEAD", () => git(root, "diff", "--cached") === "", WAIT_MS);
      assert.equal(fileText(root, "a.txt"), lines(20, { 2: "line two", 18: "line eighteen" }), "the working tree keeps both changes");
    } finally {
      await opened.close();
    }
  });

  test("review comments: a comment on a hunk's lines travels with the next turn, quoted", async () => {
    const { opened, page } = await fx.commentOnLineEight("Spell it as a digit.");
    try {
      const chips = page.getByRole("region", { name: "Review comments to send" });
      await chips.getByText("a.txt:8", { exact: true }).waitFor();
      fx.model.enqueue({ text: "noted" });
      const before = fx.model.requests.length;
      await chips.getByRole("button", { name: "Send comments" }).click();
      const sent = await waitUntil("the model request", () => fx.model.requests[before], WAIT_MS);
      const text = JSON.stringify(sent.body.messages);
      assert.match(text, /a\.txt, new lines? 8/);
      assert.match(text, /\+line eight/);
      assert.match(text, /Spell it as a digit\./);
      await chips.waitFor({ state: "detached" });
    } finally {
      await opened.close();
    }
  });

  test("review comments go with the next message typed in the composer, quoted", async () => {
    const { opened, page } = await fx.commentOnLineEight("Use a digit here.");
    try {
      await page.locator(".composer-comments", { hasText: "1 review comment goes with this message" }).waitFor();
      fx.model.enqueue({ text: "will do" });
      const before = fx.model.requests.length;
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("Please fix what I marked.");
      await box.press("Enter");
      const sent = await waitUntil("the model request", () => fx.model.requests[before], WAIT_MS);
      const text = JSON.stringify(sent.body.messages);
      assert.match(text, /Please fix what I marked\./);
      assert.match(text, /\+line eight/);
      assert.match(text, /Use a digit here\./);
      await page.getByRole("region", { name: "Review comments to send" }).waitFor({ state: "detached" });
      await page.locator(".composer-comments").waitFor({ state: "detached" });
    } finally {
      await opened.close();
    }
  });
});
