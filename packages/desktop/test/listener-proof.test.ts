import { strict as assert } from "node:assert";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { Impostor, type ImpostorRecord, otherUser, waitUntil } from "@knightcode/testkit";
import { launchBrowser, openPage } from "./support/browser.js";
import { DesktopServer, NO_BROWSER, WAIT_MS } from "./support/desktop.js";

// Issue 27, doors 6 and 8 in a real browser: the launcher hands the token over only to a listener that proved
// it holds it, and the page never sends it, not even to the port it was loaded from.

/** A stand-in xdg-open that records the one address it is given. */
function fakeOpener(): { bin: string; opened: () => string | undefined } {
  const bin = mkdtempSync(join(tmpdir(), "kc-page-opener-"));
  const record = join(bin, "opened");
  writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > "${record}.tmp" && mv "${record}.tmp" "${record}"\n`);
  chmodSync(join(bin, "xdg-open"), 0o755);
  return { bin, opened: () => (existsSync(record) ? readFileSync(record, "utf8") : undefined) };
}

/** Whether the token reached the impostor in any form the page could have sent it. */
function leaked(impostor: Impostor, token: string): boolean {
  const received = impostor.received;
  return received.includes(token) || received.includes(Buffer.from(token).toString("base64url"));
}

describe("the launcher and the page check who listens before the token goes anywhere", { skip: NO_BROWSER }, () => {
  let browser: Browser;
  before(async () => (browser = await launchBrowser()));
  after(async () => await browser?.close());

  test("the launcher file, opened in a browser, leads to the connected page; the token leaves the address bar", async () => {
    const opener = fakeOpener();
    const server = await DesktopServer.start({ opener: opener.bin });
    const context = await browser.newContext();
    try {
      const launcher = await waitUntil("the opener to be given the launcher", opener.opened, WAIT_MS);
      assert.match(launcher, /^file:\/\/\//);
      assert.ok(!launcher.includes(server.token));
      const page = await context.newPage();
      await page.goto(launcher);
      await page.waitForURL(`${server.origin}/`, { timeout: WAIT_MS });
      await page.waitForSelector("html[data-ready='true']", { timeout: WAIT_MS });
      assert.ok(!page.url().includes(server.token));
      await waitUntil("the launcher to be removed once used", () => !existsSync(dirname(fileURLToPath(launcher))) || undefined, WAIT_MS);
    } finally {
      await context.close();
      await server.dispose();
      rmSync(opener.bin, { recursive: true, force: true });
    }
  });

  test("a launcher opened after another user took the port says so, and never moves to their page", async () => {
    const opener = fakeOpener();
    const server = await DesktopServer.start({ opener: opener.bin });
    const context = await browser.newContext();
    let impostor: Impostor | undefined;
    const launcher = await waitUntil("the opener to be given the launcher", opener.opened, WAIT_MS);
    try {
      assert.match(launcher, /^file:\/\/\//);
      // Killed outright, the server leaves its launcher behind; the browser opens it late.
      server.child.kill("SIGKILL");
      await server.stop();
      impostor = await Impostor.start({ port: server.port, mode: "answer", user: otherUser() });
      const page = await context.newPage();
      await page.goto(launcher);
      await page.getByText("is not your KnightCode server").waitFor({ timeout: WAIT_MS });
      assert.ok(page.url().startsWith("file://"), "the launcher stayed where it was");
      assert.ok(
        impostor.records.some((record) => record.kind === "upgrade"),
        "the launcher asked the listener for its proof",
      );
      assert.deepEqual(
        impostor.records.filter((record) => record.kind === "http"),
        [],
        "the browser never loaded their page",
      );
      assert.ok(!leaked(impostor, server.token));
    } finally {
      await context.close();
      await impostor?.close();
      await server.dispose();
      rmSync(dirname(fileURLToPath(launcher)), { recursive: true, force: true });
      rmSync(opener.bin, { recursive: true, force: true });
    }
  });

  test("the page's server stops and another user takes its port: the page sends nothing, forgets the token, and a reload finds none", async () => {
    const server = await DesktopServer.start();
    const opened = await openPage(browser, server);
    let impostor: Impostor | undefined;
    try {
      const { page } = opened;
      assert.equal(await page.evaluate(() => sessionStorage.getItem("knightcode.token")), server.token);
      await server.stop();
      const taken = await Impostor.start({ port: server.port, mode: "answer", user: otherUser() });
      impostor = taken;
      await waitUntil("the page to try the listener on its port", () => taken.records.some((record) => record.kind === "upgrade") || undefined, WAIT_MS);
      assert.ok(!leaked(taken, server.token), "the token reached the impostor");
      await page.getByRole("alert").filter({ hasText: "does not hold this page's token" }).waitFor({ timeout: WAIT_MS });
      assert.ok(!leaked(taken, server.token), "the token reached the impostor");
      assert.deepEqual(
        impostor.records.filter((record) => record.kind === "message"),
        [],
        "nothing was sent over the socket",
      );
      assert.equal(await page.evaluate(() => sessionStorage.getItem("knightcode.token")), null);

      // What remains: a reload runs the impostor's page in the page's origin. It finds nothing to take.
      await page.reload();
      const stolen = await waitUntil<ImpostorRecord>(
        "the impostor's page to report what the tab kept",
        () => impostor!.records.find((record) => record.kind === "http" && record.url.startsWith("/steal")),
        WAIT_MS,
      );
      assert.equal(stolen.kind === "http" ? stolen.url : "", "/steal?null");
    } finally {
      await opened.close();
      await impostor?.close();
      await server.dispose();
    }
  });
});
