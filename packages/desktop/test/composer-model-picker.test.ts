import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { describeViolations, DESKTOP, NARROW, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER } from "./support/desktop.js";
import { composerSuite, until } from "./composer-support.js";

describe("the composer's model picker", { skip: NO_BROWSER }, () => {
  const f = composerSuite();

  test("typing a name finds the model; the arrow keys and Enter pick it, and the server's thread takes it", async () => {
    const { threadId, opened, page } = await f.newThread();
    try {
      const button = page.getByRole("button", { name: /^Model / });
      await button.click();
      const search = page.getByRole("combobox", { name: "Search models" });
      assert.equal(await search.evaluate((el) => el === document.activeElement), true, "the search box takes the keyboard");
      const list = page.getByRole("listbox", { name: "Models" });
      // Available models first, grouped under their provider.
      await list
        .getByRole("group", { name: "scripted" })
        .getByRole("option", { name: /^scripted-reasoner/ })
        .waitFor();
      await page.keyboard.type("scripted");
      await until("two matches", async () => (await list.getByRole("option", { name: /^scripted-/ }).count()) === 2);
      await page.keyboard.type(" reason");
      await until("the one match", async () => (await list.getByRole("option").first().textContent())?.startsWith("scripted-reasoner"));
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("ArrowUp");
      // Read as the list settles after the keys: a loaded machine draws it a little later.
      await until("the arrow keys to rest on the match", async () => {
        const active = await search.getAttribute("aria-activedescendant");
        return !!active && ((await page.locator(`[id="${active}"]`).textContent()) ?? "").startsWith("scripted-reasoner");
      });
      await page.keyboard.press("Enter");
      await list.waitFor({ state: "detached" });
      await until("the button to name the model", async () => (await button.textContent()) === "scripted-reasoner");
      assert.equal(await button.evaluate((el) => el === document.activeElement), true, "focus is back on the button");
      const client = await f.server.client();
      const { thread } = await client.request("thread/resume", { threadId });
      assert.deepEqual(thread.model, { provider: "scripted", id: "scripted-reasoner" });
      // Escape closes without a change.
      await button.press("Enter");
      // The search box has the focus before the browser takes the next key: no wait, Escape goes to it, not to the button.
      assert.equal(await search.evaluate((el) => el === document.activeElement), true, "the search box has the focus at once");
      await page.keyboard.press("Escape");
      await list.waitFor({ state: "detached" });
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });

  test("a model without a key is not offered: it is counted behind 'add a key', which opens the Accounts settings", async () => {
    const client = await f.server.client();
    const missing = (await client.request("model/list", { available: false })).models[0]!;
    const { opened, page } = await f.newThread();
    try {
      await page.getByRole("button", { name: /^Model / }).click();
      await page.keyboard.type(missing.name);
      const list = page.getByRole("listbox", { name: "Models" });
      const addKey = list.getByRole("option", { name: /^Add a key/ });
      await addKey.waitFor();
      assert.equal(await list.getByRole("option", { name: missing.name, exact: true }).count(), 0);
      assert.match((await addKey.textContent()) ?? "", /\d+ more models? needs? one/);
      await page.keyboard.press("End");
      await page.keyboard.press("ArrowDown");
      await until("'add a key' to be the active entry", async () => (await addKey.getAttribute("aria-selected")) === "true");
      await page.keyboard.press("Enter");
      await page.getByRole("tab", { name: "Accounts", selected: true }).waitFor();
      await page.getByLabel("API key").waitFor();
    } finally {
      await opened.close();
    }
  });

  test("the open picker: screenshot and axe at desktop and narrow widths, light and dark", async () => {
    const { opened, page } = await f.newThread();
    try {
      await page.getByRole("button", { name: /^Model / }).click();
      await page.getByRole("listbox", { name: "Models" }).getByRole("option").first().waitFor();
      await page.keyboard.press("ArrowDown");
      for (const viewport of [DESKTOP, NARROW]) {
        await page.setViewportSize(viewport);
        const violations = await screenAndAudit(page, "model-picker-open");
        assert.deepEqual(violations, [], describeViolations(violations));
        // The whole list is on screen, above the composer.
        const box = await page.locator(".model-picker-popup").boundingBox();
        assert.ok(box && box.y >= 0 && box.x >= 0 && box.x + box.width <= viewport.width, `the popup is on screen: ${JSON.stringify(box)}`);
      }
      await page.emulateMedia({ colorScheme: "dark" });
      const dark = await screenAndAudit(page, "model-picker-open-dark");
      assert.deepEqual(dark, [], describeViolations(dark));
    } finally {
      await opened.close();
    }
  });
});
