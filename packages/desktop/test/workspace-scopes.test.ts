import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { git, waitUntil, writeFiles } from "@knightcode/testkit";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { fileText, lines, workspaceSuite } from "./workspace-support.js";

describe("the workspace panel's other scopes", { skip: NO_BROWSER }, () => {
  const fx = workspaceSuite();

  test("the last turn: undo takes its edit back after confirming, and reapply brings it again", async () => {
    const root = fx.repo();
    const thread = await fx.thread(root, { approvalMode: "fullAccess" });
    fx.model.enqueue({ toolCalls: [{ name: "edit", arguments: { path: "a.txt", oldText: "line 2\n", newText: "line two\n" } }] }, { text: "done" });
    await (await fx.client.runTurn(thread.id, "Spell out line 2")).completed;
    assert.equal(fileText(root, "a.txt"), lines(20, { 2: "line two" }));
    const opened = await fx.openPanel(thread.id, "Changes");
    try {
      const page = opened.page;
      await page.getByLabel("Show").selectOption("lastTurn");
      await page.locator('[data-path="a.txt"] .ws-hunk').getByText("line two").waitFor();
      await page.getByRole("button", { name: "Undo turn" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Revert" }).click();
      await waitUntil("the turn's edit undone", () => fileText(root, "a.txt") === lines(20), WAIT_MS);
      await page.getByRole("button", { name: "Reapply turn" }).click();
      await waitUntil("the turn's edit back", () => fileText(root, "a.txt") === lines(20, { 2: "line two" }), WAIT_MS);
      await page.getByRole("button", { name: "Undo turn" }).waitFor();
    } finally {
      await opened.close();
    }
  });

  test("a commit's own diff (committed scope) offers no revert; a folder outside git says so in both views", async () => {
    const root = fx.repo();
    git(root, "checkout", "-q", "-b", "feature");
    writeFiles(root, { "a.txt": lines(20, { 6: "line six" }) });
    git(root, "commit", "-qam", "feat: spell out six");
    const thread = await fx.thread(root);
    const opened = await fx.openPanel(thread.id, "Changes");
    try {
      const page = opened.page;
      await page.getByLabel("Show").selectOption("committed");
      await page.getByLabel("Commit", { exact: true }).locator("option", { hasText: "feat: spell out six" }).waitFor({ state: "attached" });
      const hunk = page.locator('[data-path="a.txt"] .ws-hunk').first();
      await hunk.getByText("line six").waitFor();
      assert.equal(await hunk.getByRole("button", { name: /^Revert/ }).count(), 0);
    } finally {
      await opened.close();
    }

    const plain = fx.server.project({ "notes.md": "# notes\n" });
    const outside = await fx.thread(plain);
    const other = await fx.openPanel(outside.id, "Git");
    try {
      await other.page.getByText("not in a git repository").waitFor();
      await other.page.getByRole("button", { name: /^Changes \(/ }).click();
      await other.page.getByRole("alert").filter({ hasText: "Not a git repository" }).waitFor();
    } finally {
      await other.close();
    }
  });

  test("a revert while a turn runs in the checkout is refused with turnInProgress, shown inline, and nothing changes", async () => {
    const root = fx.repo();
    writeFiles(root, { "a.txt": lines(20, { 9: "line nine" }) });
    const thread = await fx.thread(root);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fx.model.enqueue({ text: ["thinking ", "done"], pauseAfter: 1, gate });
    const run = await fx.client.runTurn(thread.id, "Take your time");
    const opened = await fx.openPanel(thread.id, "Changes");
    try {
      const page = opened.page;
      await page
        .locator('[data-path="a.txt"] .ws-hunk')
        .first()
        .getByRole("button", { name: /^Revert hunk/ })
        .click();
      await page.getByRole("dialog").getByRole("button", { name: "Revert" }).click();
      await page.getByRole("alert").filter({ hasText: "A turn is running in this checkout" }).waitFor();
      assert.equal(fileText(root, "a.txt"), lines(20, { 9: "line nine" }));
    } finally {
      release();
      await run.completed;
      await opened.close();
    }
  });
});
