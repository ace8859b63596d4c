import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { writeFiles } from "@knightcode/testkit";
import { DESKTOP, describeViolations, NARROW, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER } from "./support/desktop.js";
import { lines, workspaceSuite } from "./workspace-support.js";

describe("the workspace panel's accessibility", { skip: NO_BROWSER }, () => {
  const fx = workspaceSuite();

  for (const [name, viewport] of [
    ["desktop", DESKTOP],
    ["narrow", NARROW],
  ] as const) {
    test(`the diff view (with a pending comment) and the git view have no axe violations at ${name} width`, async () => {
      const root = fx.repo({ "a.txt": lines(20), "bin.dat": "\0\u0001binary" });
      writeFiles(root, { "a.txt": lines(20, { 2: "line two", 18: "line eighteen" }), "new.txt": "fresh\n", "bin.dat": "\0\u0002binary" });
      const thread = await fx.thread(root);
      const opened = await fx.openPanel(thread.id, "Changes", viewport);
      try {
        const page = opened.page;
        const hunks = page.locator('[data-path="a.txt"] .ws-hunk');
        await hunks.nth(1).waitFor();
        await hunks
          .first()
          .getByRole("button", { name: /^Comment on hunk/ })
          .click();
        const form = page.getByRole("form", { name: "Review comment" });
        await form.getByLabel("Comment").fill("A pending comment.");
        await form.getByRole("button", { name: "Add comment" }).click();
        await page.getByRole("button", { name: "Send comments" }).waitFor();
        await page.locator('[data-path="bin.dat"]').getByText("Binary file").waitFor();
        const diffViolations = await screenAndAudit(page, "workspace-diff");
        assert.equal(diffViolations.length, 0, describeViolations(diffViolations));

        await page.getByRole("button", { name: /^Git \(/ }).click();
        await page.getByRole("complementary", { name: "Git" }).getByText("Upstream", { exact: true }).waitFor();
        await page.getByText("Create a pull request").click();
        const gitViolations = await screenAndAudit(page, "workspace-git");
        assert.equal(gitViolations.length, 0, describeViolations(gitViolations));
        if (name !== "desktop") return;

        // The dark theme's colours hold up as well: the diff's added and removed lines above all.
        await page.emulateMedia({ colorScheme: "dark" });
        const darkGit = await screenAndAudit(page, "workspace-git-dark");
        assert.equal(darkGit.length, 0, describeViolations(darkGit));
        await page.getByRole("button", { name: /^Changes \(/ }).click();
        await page.locator('[data-path="a.txt"] .ws-hunk').nth(1).waitFor();
        const darkDiff = await screenAndAudit(page, "workspace-diff-dark");
        assert.equal(darkDiff.length, 0, describeViolations(darkDiff));
      } finally {
        await opened.close();
      }
    });
  }
});
