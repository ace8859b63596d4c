import { strict as assert } from "node:assert";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { git, waitUntil, writeFiles } from "@knightcode/testkit";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { escapeRegExp, fileText, lines, workspaceSuite } from "./workspace-support.js";

describe("the workspace panel's worktrees", { skip: NO_BROWSER }, () => {
  const fx = workspaceSuite();

  test("a worktree thread handed off: the change lands in the checkout and the header shows the new place", async () => {
    const root = fx.repo();
    const thread = await fx.thread(root, { workspace: { mode: "worktree" } });
    const worktree = thread.workspace.path!;
    await fx.talk(thread.id);
    writeFiles(worktree, { "a.txt": lines(20, { 3: "line three, from the worktree" }) });
    const opened = await fx.openPanel(thread.id, "Git");
    try {
      const page = opened.page;
      await page.locator(".thread-place", { hasText: worktree }).waitFor();
      await page.getByRole("button", { name: "Hand off to local" }).click();
      await waitUntil("the change in the checkout", () => fileText(root, "a.txt") === lines(20, { 3: "line three, from the worktree" }), WAIT_MS);
      await page
        .locator(".thread-place")
        .filter({ hasText: new RegExp(`^${escapeRegExp(root)}$`) })
        .waitFor();
      await page.getByRole("button", { name: "Hand off to worktree" }).waitFor();
      assert.match(git(root, "symbolic-ref", "--short", "HEAD"), /^knightcode\//);
    } finally {
      await opened.close();
    }
  });
  test("hand off to a worktree with an environment: the setup script's output shows as a log, and the thread moves there", async () => {
    const environments = { environments: [{ name: "greet", setup: { default: "echo hello-from-setup" } }] };
    const root = fx.repo({ "a.txt": lines(20), ".knightcode/environments.json": JSON.stringify(environments) });
    await fx.client.request("project/trust/set", { cwd: root, trusted: true });
    const thread = await fx.thread(root);
    await fx.talk(thread.id);
    writeFiles(root, { "a.txt": lines(20, { 4: "line four" }) });
    const opened = await fx.openPanel(thread.id, "Git");
    try {
      const page = opened.page;
      await page.getByLabel("Environment").selectOption("greet");
      await page.getByRole("button", { name: "Hand off to worktree" }).click();
      const log = page.getByLabel("setup script output");
      await log.getByText("hello-from-setup").waitFor();
      await page.getByText("Environment setup script finished").waitFor();
      await page.getByRole("button", { name: "Hand off to local" }).waitFor();
      const place = page.locator(".thread-place", { hasText: /^worktree · / });
      await place.waitFor();
      const cwd = (await place.textContent())!.replace(/^worktree · /, "").trim();
      assert.notEqual(cwd, root);
      assert.equal(readFileSync(join(cwd, "a.txt"), "utf8"), lines(20, { 4: "line four" }));
      assert.equal(git(root, "status", "--porcelain"), "", "the checkout is left clean");
    } finally {
      await opened.close();
    }
  });

  test("an archived worktree thread restored from the worktree list: its worktree and its work come back, and the page opens it", async () => {
    const root = fx.repo();
    const archived = await fx.thread(root, { workspace: { mode: "worktree" } });
    const worktree = archived.workspace.path!;
    await fx.talk(archived.id);
    writeFiles(worktree, { "wip.txt": "work in progress\n" });
    await fx.client.request("thread/archive", { threadId: archived.id });
    await waitUntil("the worktree deleted", () => !existsSync(worktree), WAIT_MS);
    const other = await fx.thread(root);
    const opened = await fx.openPanel(other.id, "Git");
    try {
      const page = opened.page;
      const row = page.getByRole("list", { name: "Managed worktrees" }).getByRole("listitem").filter({ hasText: worktree });
      await row.getByText("deleted").waitFor();
      await row.getByRole("button", { name: `Restore ${worktree}` }).click();
      await waitUntil("the worktree back with its work", () => fileText(worktree, "wip.txt") === "work in progress\n", WAIT_MS);
      await page.locator(".thread-place", { hasText: worktree }).waitFor();
      assert.equal(new URL(page.url()).searchParams.get("thread"), archived.id);
    } finally {
      await opened.close();
    }
  });
});
