import { strict as assert } from "node:assert";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { launchBrowser, openPage } from "./support/browser.js";
import { DesktopServer, NO_BROWSER } from "./support/desktop.js";

describe("the thread screen", { skip: NO_BROWSER }, () => {
  let browser: Browser;
  let server: DesktopServer;
  before(async () => {
    server = await DesktopServer.start();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.dispose();
  });

  test("opens the thread the address names and keeps it there across a reload", async () => {
    const client = await server.client();
    const project = server.project({ "README.md": "# p\n" });
    const { thread } = await client.request("thread/start", { cwd: project });
    const opened = await openPage(browser, server, undefined, server.threadUrl(thread.id));
    try {
      await opened.page.locator(".thread-place", { hasText: project }).waitFor();
      await opened.page.reload();
      await opened.page.locator(".thread-place", { hasText: project }).waitFor();
      assert.equal(new URL(opened.page.url()).searchParams.get("thread"), thread.id);
    } finally {
      await opened.close();
    }
  });
});
