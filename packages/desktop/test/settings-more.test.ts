import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { NO_BROWSER } from "./support/desktop.js";
import { attributes, settingsFixture, useFolder } from "./settings-fixture.js";

describe("the settings screens: tools, resources, trust, keys", { skip: NO_BROWSER }, () => {
  const f = settingsFixture();

  test("Tools lists tool/list's tools; switching one off is reflected by tool/list", async () => {
    const opened = await f.open("tools");
    try {
      const page = opened.page;
      const listed = await f.client.request("tool/list", {});
      await page.locator("[data-tool]").first().waitFor();
      assert.deepEqual(
        await attributes(page, "[data-tool]", "data-tool"),
        listed.tools.map((t) => t.name),
      );
      assert.deepEqual(
        await attributes(page, '[data-tool][data-offered="true"]', "data-tool"),
        listed.tools.filter((t) => listed.defaultTools.includes(t.name)).map((t) => t.name),
      );
      assert.ok(listed.defaultTools.includes("bash"));
      await page.getByRole("switch", { name: "bash", exact: true }).click();
      await page.locator('[data-tool="bash"][data-offered="false"]').waitFor();
      const after = await f.client.request("tool/list", {});
      assert.ok(!after.defaultTools.includes("bash"), after.defaultTools.join(","));
      const settings = await f.client.request("tool/settings/read", {});
      assert.deepEqual(
        await attributes(page, "[data-tool-setting]", "data-tool-setting"),
        settings.tools.map((t) => t.name),
      );
    } finally {
      await opened.close();
    }
  });
  test("Resources lists resource/list's entries; switching a skill off is written", async () => {
    const opened = await f.open("resources");
    try {
      const page = opened.page;
      const listed = await f.client.request("resource/list", {});
      await page.locator("[data-resource]").first().waitFor();
      assert.deepEqual([...(await attributes(page, "[data-resource]", "data-resource"))].sort(), listed.resources.map((r) => r.path).sort());
      const review = listed.resources.find((r) => r.name === "review")!;
      await page.getByRole("switch", { name: "review" }).click();
      await page.locator(`[data-resource="${review.path}"][data-enabled="false"]`).waitFor();
      const after = await f.client.request("resource/list", {});
      assert.equal(after.resources.find((r) => r.path === review.path)?.enabled, false);
    } finally {
      await opened.close();
    }
  });
  test("Trust: trusting the project after the confirmation makes project/trust/read say trusted, and its settings load", async () => {
    const opened = await f.open("trust");
    try {
      const page = opened.page;
      await page.getByText("choose one with Project above").waitFor();
      await useFolder(page, f.project);
      assert.equal((await f.client.request("project/trust/read", { cwd: f.project })).trusted, null);
      await page.locator('.settings-trust-state[data-trusted="null"]').waitFor();
      await page.getByRole("button", { name: "Trust project…" }).click();
      const dialog = page.getByRole("dialog", { name: "Trust this project?" });
      await dialog.getByText("extensions run as code inside the server").waitFor();
      await dialog.getByRole("button", { name: "Trust project" }).click();
      await page.locator('.settings-trust-state[data-trusted="true"]').waitFor();
      assert.equal((await f.client.request("project/trust/read", { cwd: f.project })).trusted, true);
      // The project's own settings now count, with their origin.
      await page.getByRole("tab", { name: "General" }).click();
      await page.locator('[data-key="compaction.keepRecentTokens"][data-origin="project"]').waitFor();
      await page.getByRole("tab", { name: "Resources" }).click();
      await page.getByRole("switch", { name: "proj-skill" }).waitFor();
    } finally {
      await opened.close();
    }
  });
  test("the tab list moves with the arrow keys, and Back to threads leaves", async () => {
    const opened = await f.open("general");
    try {
      const page = opened.page;
      await page.getByRole("tab", { name: "General" }).focus();
      await page.keyboard.press("ArrowRight");
      await page.getByRole("tab", { name: "Models", selected: true }).waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Models");
      await page.keyboard.press("End");
      await page.getByRole("tab", { name: "Trust", selected: true }).waitFor();
      await page.keyboard.press("ArrowRight");
      await page.getByRole("tab", { name: "General", selected: true }).waitFor();
      assert.match(page.url(), /settings=general/);
      await page.getByRole("button", { name: "Back to threads" }).click();
      await page.locator(".settings").waitFor({ state: "detached" });
    } finally {
      await opened.close();
    }
  });
});
