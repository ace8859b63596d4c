import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { DESKTOP, NARROW, describeViolations, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER } from "./support/desktop.js";
import { composerSuite, hasFd } from "./composer-support.js";

describe("the composer: accessibility with its popups open", { skip: NO_BROWSER }, () => {
  const f = composerSuite();

  for (const viewport of [DESKTOP, NARROW]) {
    test(`the composer with its popups open passes axe at ${viewport.width} px`, async () => {
      const { opened, page } = await f.newThread(viewport);
      try {
        const box = page.getByLabel("Message", { exact: true });
        await box.pressSequentially("/");
        await page.getByRole("listbox", { name: "Commands" }).waitFor();
        const commands = await screenAndAudit(page, "composer-commands");
        assert.equal(commands.length, 0, describeViolations(commands));
        if (hasFd()) {
          await box.fill("");
          await box.pressSequentially("see @src");
          await page.getByRole("listbox", { name: "Files" }).waitFor();
          const files = await screenAndAudit(page, "composer-files");
          assert.equal(files.length, 0, describeViolations(files));
        }
      } finally {
        await opened.close();
      }
    });
  }
});
