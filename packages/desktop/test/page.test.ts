import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { DESKTOP, describeViolations, NARROW, openPage, screenAndAudit, ZOOMED } from "./support/browser.js";
import { DesktopServer, NO_BROWSER } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

describe("the page", { skip: NO_BROWSER }, () => {
  const f = desktopSuite({ model: false });

  test("connects with the token from the fragment, then takes the token out of the address bar", async () => {
    const opened = await openPage(f.browser, f.server);
    try {
      assert.equal(new URL(opened.page.url()).hash, "");
      assert.ok(!opened.page.url().includes(f.server.token));
      await opened.page.getByRole("heading", { name: "KnightCode" }).waitFor();
      // A reload finds the token in this tab's session storage.
      await opened.page.reload();
      await opened.page.waitForSelector("html[data-ready='true']");
      assert.deepEqual(opened.foreignRequests, []);
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });

  test("without the token it says which address to open, and connects to nothing", async () => {
    const context = await f.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(f.server.origin + "/");
      await page.getByRole("alert").filter({ hasText: "#token=" }).waitFor();
    } finally {
      await context.close();
    }
  });

  test("a restart with another token is refused and said so; a restart with the same one reconnects", async () => {
    const own = await DesktopServer.start();
    const opened = await openPage(f.browser, own);
    let current = own;
    try {
      const { page } = opened;
      await page.getByRole("heading", { name: "KnightCode" }).waitFor();
      const reconnecting = page.getByRole("status").filter({ hasText: "Reconnecting" });
      await own.stop();
      await reconnecting.waitFor();
      current = await DesktopServer.start({ home: own.home, port: own.port, token: own.token });
      await reconnecting.waitFor({ state: "detached" });
      await current.stop();
      current = await DesktopServer.start({ home: own.home, port: own.port, token: "f".repeat(64) });
      await page.getByRole("alert").filter({ hasText: "does not hold this page's token" }).waitFor();
      assert.equal(await page.evaluate(() => sessionStorage.getItem("knightcode.token")), null, "the tab forgot the token");
    } finally {
      await opened.close();
      await current.stop();
      await own.dispose();
    }
  });

  for (const [name, viewport] of [
    ["desktop", DESKTOP],
    ["narrow", NARROW],
    ["zoomed", ZOOMED],
  ] as const) {
    test(`the empty screen passes the accessibility audit (${name})`, async () => {
      const opened = await openPage(f.browser, f.server, viewport);
      try {
        const violations = await screenAndAudit(opened.page, `empty-${name}`);
        assert.deepEqual(violations, [], describeViolations(violations));
      } finally {
        await opened.close();
      }
    });
  }
});
