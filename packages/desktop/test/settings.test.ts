import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { NO_BROWSER } from "./support/desktop.js";

/** How many models the Models tab draws at a time (MODELS_PAGE in models.tsx). */
const MODELS_PAGE = 50;
import { attributes, leafKeys, settingsFixture } from "./settings-fixture.js";

describe("the settings screens: general, models, MCP", { skip: NO_BROWSER }, () => {
  const f = settingsFixture();

  test("General shows every setting config/read knows, with its origin", async () => {
    await f.client.request("config/write", { scope: "global", key: "retry.provider.maxRetries", value: 5 });
    const opened = await f.open("general");
    try {
      const read = await f.client.request("config/read", {});
      const page = opened.page;
      await page.locator('[data-key="retry.provider.maxRetries"][data-origin="global"]').waitFor();
      const keys = await attributes(page, "[data-key]", "data-key");
      const expected = [...new Set([...leafKeys(read.defaults), ...leafKeys(read.settings)])];
      assert.deepEqual([...keys].sort(), [...expected].sort());
      const origins = await attributes(page, "[data-key]", "data-origin");
      for (const [i, key] of keys.entries()) assert.equal(origins[i], read.origins[key!] ?? "default", key!);
      assert.equal(await page.getByRole("spinbutton", { name: "retry.provider.maxRetries" }).inputValue(), "5");
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });
  test("a boolean and an enum setting are written; a write after someone else's change shows the conflict", async () => {
    const opened = await f.open("general");
    try {
      const page = opened.page;
      const toggle = page.getByRole("switch", { name: "compaction.enabled" });
      assert.equal(await toggle.isChecked(), true);
      await toggle.click();
      await page.getByText("compaction.enabled saved").waitFor();
      let read = await f.client.request("config/read", {});
      assert.equal((read.settings as { compaction?: { enabled?: boolean } }).compaction?.enabled, false);

      await page.getByRole("combobox", { name: "defaultApprovalMode" }).selectOption("autoEdit");
      await page.getByText("defaultApprovalMode saved").waitFor();
      read = await f.client.request("config/read", {});
      assert.equal((read.settings as { defaultApprovalMode?: string }).defaultApprovalMode, "autoEdit");
      await page.locator('[data-key="defaultApprovalMode"][data-origin="global"]').waitFor();

      // Another client changes the file: the page's version is stale now.
      await f.client.request("config/write", { scope: "global", key: "theme", value: "light" });
      await page.getByRole("switch", { name: "compaction.enabled" }).click();
      const conflict = page.locator(".settings-conflict[role=alert]");
      await conflict.waitFor();
      assert.match((await conflict.textContent()) ?? "", /changed since this page read it/);
      read = await f.client.request("config/read", {});
      assert.equal((read.settings as { compaction?: { enabled?: boolean } }).compaction?.enabled, false, "the refused write left the file alone");
      // The page re-read the file: the theme the other client wrote shows.
      await page.locator('[data-key="theme"][data-origin="global"]').waitFor();
      assert.equal(await page.getByRole("textbox", { name: "theme", exact: true }).inputValue(), "light");
    } finally {
      await opened.close();
    }
  });
  test("Models lists what model/list answers, and its filters ask the server; accounts have their own tab", async () => {
    const opened = await f.open("models");
    try {
      const page = opened.page;
      const all = await f.client.request("model/list", {});
      await page.locator("[data-model]").first().waitFor();
      const names = (list: typeof all.models) => list.map((m) => `${m.provider}/${m.id}`);
      // The first page, then one more on request.
      assert.deepEqual(await attributes(page, "[data-model]", "data-model"), names(all.models.slice(0, MODELS_PAGE)));
      if (all.models.length > MODELS_PAGE) {
        await page.getByRole("button", { name: /^Show \d+ more$/ }).click();
        await page
          .locator("[data-model]")
          .nth(Math.min(2 * MODELS_PAGE, all.models.length) - 1)
          .waitFor();
        assert.deepEqual(await attributes(page, "[data-model]", "data-model"), names(all.models.slice(0, 2 * MODELS_PAGE)));
      }
      await page.getByLabel("Show").selectOption("available");
      const available = await f.client.request("model/list", { available: true });
      assert.ok(available.models.length > 0 && available.models.length < all.models.length);
      await page.locator('[data-model][data-available="false"]').first().waitFor({ state: "detached" });
      assert.deepEqual(await attributes(page, "[data-model]", "data-model"), names(available.models.slice(0, MODELS_PAGE)));
      // Make default writes the global defaultProvider and defaultModel.
      const target = available.models[available.models.length - 1]!;
      await page.getByRole("button", { name: `Make ${target.name} (${target.provider}) the default` }).click();
      await page.locator(`[data-model="${target.provider}/${target.id}"] .badge-running`).waitFor();
      const settings = (await f.client.request("config/read", {})).settings as { defaultProvider?: string; defaultModel?: string };
      assert.deepEqual([settings.defaultProvider, settings.defaultModel], [target.provider, target.id]);
      // A model that cannot run is never offered as the default.
      const unavailable = (await f.client.request("model/list", { available: false })).models[0]!;
      await page.getByLabel("Show").selectOption("unavailable");
      await page.locator(`[data-model="${unavailable.provider}/${unavailable.id}"]`).waitFor();
      assert.equal(await page.getByRole("button", { name: /^Make .* the default$/ }).count(), 0);
      // The keys behind availability have their own tab.
      await page.getByRole("button", { name: "Open Accounts" }).click();
      await page.getByRole("tab", { name: "Accounts", selected: true }).waitFor();
      const accounts = await f.client.request("account/read", {});
      for (const account of accounts.accounts) await page.locator(`[data-provider="${account.provider}"]`).waitFor();
      // The key field never shows a key back.
      assert.equal(await page.getByLabel("API key").getAttribute("type"), "password");
    } finally {
      await opened.close();
    }
  });
  test("MCP lists the servers and the file's problems; disabling one is written", async () => {
    const opened = await f.open("mcp");
    try {
      const page = opened.page;
      const listed = await f.client.request("mcp/list", {});
      await page.locator("[data-mcp]").first().waitFor();
      assert.deepEqual(
        await attributes(page, "[data-mcp]", "data-mcp"),
        listed.servers.map((s) => s.name),
      );
      assert.ok(listed.errors.length > 0);
      for (const warning of listed.errors) await page.getByText(warning.message).first().waitFor();
      await page.getByRole("switch", { name: "Enable local" }).click();
      await page.locator('[data-mcp="local"][data-enabled="false"]').waitFor();
      const after = await f.client.request("mcp/list", {});
      assert.equal(after.servers.find((s) => s.name === "local")?.enabled, false);
    } finally {
      await opened.close();
    }
  });
  test("MCP: a server added from the form is listed by mcp/list, and Remove (confirmed) deletes it", async () => {
    const opened = await f.open("mcp");
    try {
      const page = opened.page;
      await page.locator("[data-mcp]").first().waitFor();
      await page.getByLabel("Name", { exact: true }).fill("added");
      await page.getByLabel("Command line").fill('node "my server.js" --flag');
      await page.getByRole("button", { name: "Add server" }).click();
      await page.locator('[data-mcp="added"]').waitFor();
      const listed = await f.client.request("mcp/list", {});
      const added = listed.servers.find((s) => s.name === "added");
      assert.equal(added?.transport, "stdio");
      assert.equal(added?.scope, "global");
      await page.getByRole("button", { name: "Remove added" }).click();
      await page.getByRole("dialog", { name: "Remove added?" }).getByRole("button", { name: "Remove" }).click();
      await page.locator('[data-mcp="added"]').waitFor({ state: "detached" });
      assert.ok(!(await f.client.request("mcp/list", {})).servers.some((s) => s.name === "added"));
    } finally {
      await opened.close();
    }
  });
});
