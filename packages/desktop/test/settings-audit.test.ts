import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { describeViolations, DESKTOP, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER } from "./support/desktop.js";
import { auditEveryTab, describeTabViolations, settingsFixture, useFolder } from "./settings-fixture.js";

// One file per width: each audits six tabs, which takes a while on a busy machine.
describe("the settings screens pass the accessibility audit (desktop)", { skip: NO_BROWSER }, () => {
  const f = settingsFixture();

  test("every tab at desktop width: screenshot and axe-core with zero violations", async () => {
    const { violations, consoleErrors } = await auditEveryTab(f, DESKTOP, "desktop");
    assert.deepEqual(violations, {}, describeTabViolations(violations));
    assert.deepEqual(consoleErrors, []);
  });

  test("the general and MCP tabs in the dark theme, chosen on the page: zero violations", async () => {
    const opened = await f.open("general", DESKTOP);
    try {
      const page = opened.page;
      await useFolder(page, f.project);
      await page.getByLabel("Theme of this page").selectOption("dark");
      await page.locator("html[data-theme=dark]").waitFor({ state: "attached" });
      await page.locator("[data-key]").first().waitFor();
      let violations = await screenAndAudit(page, "settings-general-dark");
      assert.deepEqual(violations, [], describeViolations(violations));
      await page.getByRole("tab", { name: "MCP" }).click();
      await page.locator("[data-mcp]").first().waitFor();
      violations = await screenAndAudit(page, "settings-mcp-dark");
      assert.deepEqual(violations, [], describeViolations(violations));
    } finally {
      await opened.close();
    }
  });
});
