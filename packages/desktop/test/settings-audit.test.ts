import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { DESKTOP, describeViolations, NARROW, screenAndAudit, type AxeViolation } from "./support/browser.js";
import { NO_BROWSER } from "./support/desktop.js";
import { settingsFixture, TABS, useFolder } from "./settings-fixture.js";

describe("the settings screens pass the accessibility audit", { skip: NO_BROWSER }, () => {
  const f = settingsFixture();

  for (const [name, viewport] of [["desktop", DESKTOP], ["narrow", NARROW]] as const) {
    test(`every tab, ${name}: screenshot and axe-core with zero violations`, async () => {
      const opened = await f.open("general", viewport);
      try {
        const page = opened.page;
        await useFolder(page, f.project);
        const found: Record<string, AxeViolation[]> = {};
        for (const tab of TABS) {
          await page.getByRole("tab", { name: tab === "mcp" ? "MCP" : tab[0]!.toUpperCase() + tab.slice(1) }).click();
          await page.locator(`.settings[data-tab="${tab}"]`).waitFor();
          await page.locator(".settings-panel .settings-section").first().waitFor();
          await page.locator(".settings-panel [aria-busy=true]").first().waitFor({ state: "detached" });
          const violations = await screenAndAudit(page, `settings-${tab}-${name}`);
          if (violations.length > 0) found[tab] = violations;
        }
        assert.deepEqual(found, {}, Object.entries(found).map(([tab, v]) => `${tab}:\n${describeViolations(v)}`).join("\n"));
        assert.deepEqual(opened.consoleErrors, []);
      } finally {
        await opened.close();
      }
    });
  }
});
