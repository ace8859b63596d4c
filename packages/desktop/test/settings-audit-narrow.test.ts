import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { NARROW } from "./support/browser.js";
import { NO_BROWSER } from "./support/desktop.js";
import { auditEveryTab, describeTabViolations, settingsFixture } from "./settings-fixture.js";

// One file per width: each audits six tabs, which takes a while on a busy machine.
describe("the settings screens pass the accessibility audit (narrow)", { skip: NO_BROWSER }, () => {
  const f = settingsFixture();

  test("every tab at narrow width: screenshot and axe-core with zero violations", async () => {
    const { violations, consoleErrors } = await auditEveryTab(f, NARROW, "narrow");
    assert.deepEqual(violations, {}, describeTabViolations(violations));
    assert.deepEqual(consoleErrors, []);
  });
});
