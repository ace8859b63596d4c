import { strict as assert } from "node:assert";
import { join } from "node:path";
import { describe, test } from "node:test";
import { git, waitUntil, waitUntilAsync, writeFiles } from "@knightcode/testkit";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { lines, workspaceSuite } from "./workspace-support.js";

describe("the workspace panel's git view", { skip: NO_BROWSER }, () => {
  const fx = workspaceSuite();

  test("a commit takes only the staged file, with a drafted message the user edits first", async () => {
    const root = fx.repo({ "a.txt": lines(20), "b.txt": lines(5) });
    writeFiles(root, { "a.txt": lines(20, { 5: "line five" }), "b.txt": lines(5, { 1: "line one" }) });
    git(root, "add", "a.txt");
    const thread = await fx.thread(root);
    const opened = await fx.openPanel(thread.id, "Git");
    try {
      const page = opened.page;
      await page.getByText("1 staged, 1 unstaged, 0 untracked").waitFor();
      const form = page.getByRole("form", { name: "Commit" });
      assert.equal(await form.getByLabel("Include unstaged and untracked changes").isChecked(), false, "only what is staged, by default");
      await form.getByText("1 file staged is committed; 1 file with other changes stays out.").waitFor();
      // No message, no commit: the message is always one the user has seen.
      assert.equal(await form.getByRole("button", { name: "Commit staged changes" }).isDisabled(), true);
      // The thread's model writes the draft; the button says so until it arrives.
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      fx.model.enqueue({ text: ["Spell out ", "line five"], pauseAfter: 1, gate });
      const asked = fx.model.requests.length + 1;
      await form.getByRole("button", { name: "Draft message" }).click();
      await form.getByRole("button", { name: "Drafting…" }).waitFor();
      const sent = JSON.stringify((await fx.model.waitForRequests(asked))[asked - 1]!.body);
      release();
      assert.match(sent, /line five/);
      assert.doesNotMatch(sent, /line one/, "the model sees only the staged change");
      const box = form.getByLabel("Commit message");
      await waitUntilAsync("the model's draft in the box", async () => (await box.inputValue()) === "Spell out line five", WAIT_MS);
      assert.equal(git(root, "rev-list", "--count", "HEAD").trim(), "1", "drafting commits nothing");
      // The user edits the draft where it stands; the commit carries the edit.
      await box.press("End");
      await box.pressSequentially(" in a.txt");
      await form.getByRole("button", { name: "Commit staged changes" }).click();
      await waitUntil("the commit", () => git(root, "log", "-1", "--format=%s").trim() === "Spell out line five in a.txt", WAIT_MS);
      assert.equal(git(root, "show", "--name-only", "--format=", "HEAD").trim(), "a.txt", "the commit holds the staged file only");
      assert.equal(git(root, "status", "--porcelain").trim(), "M b.txt", "b.txt stays unstaged");
      await page.getByText("0 staged, 1 unstaged, 0 untracked").waitFor();
      await page.getByText(/Committed [0-9a-f]{7}: Spell out line five in a\.txt/).waitFor();
      assert.equal(await box.inputValue(), "");
    } finally {
      await opened.close();
    }
  });

  test("when the model cannot write the draft, the plain one from the files lands in the box, and the form says why", async () => {
    const root = fx.repo({ "a.txt": lines(20) });
    writeFiles(root, { "a.txt": lines(20, { 5: "line five" }) });
    git(root, "add", "a.txt");
    const thread = await fx.thread(root);
    const opened = await fx.openPanel(thread.id, "Git");
    try {
      const form = opened.page.getByRole("form", { name: "Commit" });
      await form.getByText("1 file staged is committed.").waitFor();
      fx.model.enqueue({ status: 500, body: { error: { message: "model down" } } });
      await form.getByRole("button", { name: "Draft message" }).click();
      const box = form.getByLabel("Commit message");
      await waitUntilAsync("the plain draft in the box", async () => (await box.inputValue()) === "Update a.txt", WAIT_MS);
      await form
        .getByRole("status")
        .filter({ hasText: /^The model could not write a message \(.+\): this draft only lists the files\.$/ })
        .waitFor();
      assert.equal(git(root, "rev-list", "--count", "HEAD").trim(), "1", "nothing was committed");
    } finally {
      await opened.close();
    }
  });

  test("push to a local bare remote updates it; a pull request without gh says gh is missing", async () => {
    const root = fx.repo();
    const remote = join(fx.server.home, `remote-${Date.now()}.git`);
    git(fx.server.home, "init", "-q", "--bare", "-b", "main", remote);
    git(root, "remote", "add", "origin", remote);
    const thread = await fx.thread(root);
    const opened = await fx.openPanel(thread.id, "Git");
    try {
      const page = opened.page;
      await page.getByRole("button", { name: "Push", exact: true }).click();
      // A remote that is a folder on this machine is pushed to only once the user says yes.
      const confirm = page.getByRole("group", { name: "Push to a folder on this machine?" });
      // Should the question not show, the failure says what the server waits on and what the page shows.
      await confirm.waitFor().catch(async (error: unknown) => {
        const waiting = await fx.client.request("serverRequest/list", {}).catch((failure: unknown) => String(failure));
        const shown = await page
          .locator("body")
          .innerText()
          .catch(() => "");
        throw new Error(`${String(error)}\nthe server waits on: ${JSON.stringify(waiting)}\nthe page shows: ${shown.slice(0, 2000)}`);
      });
      await confirm.getByRole("button", { name: "Yes" }).click();
      await confirm.waitFor({ state: "detached" });
      const head = git(root, "rev-parse", "HEAD").trim();
      await waitUntil(
        "the remote's main at our HEAD",
        () => {
          try {
            return git(remote, "rev-parse", "refs/heads/main").trim() === head;
          } catch {
            return false;
          }
        },
        WAIT_MS,
      );
      await page.getByText("origin/main · 0 ahead, 0 behind").waitFor();
      await page.getByText("Create a pull request").click();
      await page.getByRole("button", { name: "Create pull request" }).click();
      const alert = page.getByRole("alert").filter({ hasText: "A tool is missing on the server" });
      await alert.getByText(/GitHub CLI \(gh\)/).waitFor();
    } finally {
      await opened.close();
    }
  });
  test("refusals show inline: a stale hunk re-reads and says so; a branch switch over a local change names the file", async () => {
    const root = fx.repo();
    git(root, "branch", "other");
    git(root, "checkout", "-q", "other");
    writeFiles(root, { "a.txt": lines(20, { 1: "line one on other" }) });
    git(root, "commit", "-qam", "other's change");
    git(root, "checkout", "-q", "main");
    writeFiles(root, { "a.txt": lines(20, { 10: "line ten" }) });
    const thread = await fx.thread(root);
    const opened = await fx.openPanel(thread.id, "Changes");
    try {
      const page = opened.page;
      const hunk = page.locator('[data-path="a.txt"] .ws-hunk').first();
      await hunk.getByText("line ten").waitFor();
      writeFiles(root, { "a.txt": lines(20, { 10: "line ten", 20: "line twenty" }) });
      await hunk.getByRole("button", { name: /^Revert hunk/ }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Revert" }).click();
      await page.getByRole("status").filter({ hasText: "The changes moved since they were shown" }).waitFor();
      await page.locator('[data-path="a.txt"]').getByText("line twenty").waitFor();
      assert.equal(git(root, "diff", "--stat").includes("a.txt"), true, "nothing was reverted");

      await page.getByRole("button", { name: /^Git \(/ }).click();
      await page.getByRole("button", { name: "Switch to other" }).click();
      const alert = page.getByRole("alert").filter({ hasText: "Local changes are in the way" });
      await alert.getByRole("listitem").filter({ hasText: "a.txt" }).waitFor();
      assert.equal(git(root, "symbolic-ref", "--short", "HEAD").trim(), "main");
    } finally {
      await opened.close();
    }
  });
});
