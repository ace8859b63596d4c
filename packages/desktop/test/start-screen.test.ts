import { strict as assert } from "node:assert";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import { waitUntilAsync } from "@knightcode/testkit";
import { DESKTOP, describeViolations, NARROW, openPage, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

/** Whether the focused element is the first screen's message box. */
async function messageBoxFocused(page: Page): Promise<boolean> {
  return page.evaluate(() => document.activeElement?.getAttribute("aria-label") === "Message");
}

/** Records whether a message marked as sending was ever drawn, from now on. */
async function watchSending(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen = { text: "" };
    (window as unknown as { sendingSeen: typeof seen }).sendingSeen = seen;
    const look = () => {
      const marked = document.querySelector("[data-sending='sending']");
      if (marked && !seen.text) seen.text = marked.textContent ?? "";
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
}

describe("the first screen", { skip: NO_BROWSER }, () => {
  let project: string;
  let other: string;
  const f = desktopSuite({
    server: (suite) => {
      // The server starts in a project of its own, as `npm run desktop:demo` starts in the demo project.
      project = suite.tempDir("kc-start-project-");
      writeFileSync(join(project, "README.md"), "# started here\n");
      return { cwd: project };
    },
    setup: (suite) => {
      other = suite.server.project({ "README.md": "# other\n" }, "other-project");
      mkdirSync(other, { recursive: true });
    },
  });

  test("opens on a focused message box in the server's folder; Enter starts a thread there, shows the message as sending, and streams the reply", async () => {
    const opened = await openPage(f.browser, f.server);
    const { page } = opened;
    try {
      const box = page.getByRole("textbox", { name: "Message", exact: true });
      await box.waitFor();
      await waitUntilAsync("the message box to have the focus", async () => (await messageBoxFocused(page)) || undefined, WAIT_MS);
      assert.equal(await page.getByLabel("Project folder").inputValue(), project, "the project is the folder the server was started in");

      f.model.enqueue({ text: ["Hello ", "from ", "the ", "scripted ", "model."] });
      await watchSending(page);
      // Typed into the focused box, as a user would, without clicking first.
      await page.keyboard.type("What does this project do?");
      await page.keyboard.press("Enter");

      const thread = page.locator(".thread-place", { hasText: project });
      await thread.waitFor();
      const transcript = page.getByRole("region", { name: "Conversation" });
      await transcript.locator(".user-message", { hasText: "What does this project do?" }).waitFor();
      await transcript.getByText("Hello from the scripted model.").waitFor();
      const seen = await page.evaluate(() => (window as unknown as { sendingSeen: { text: string } }).sendingSeen.text);
      assert.match(seen, /What does this project do\?.*Sending/s, "the message showed at once, marked as sending");
      await page.locator("[data-sending]").waitFor({ state: "detached" });
      // The thread's own composer has the focus, ready for the next message.
      await waitUntilAsync("the composer to have the focus", () => messageBoxFocused(page), WAIT_MS);
      assert.equal(await page.evaluate(() => !!document.activeElement?.closest("form.composer")), true);

      const client = await f.server.client();
      const { threads } = await client.request("thread/list", { limit: 10 });
      assert.equal(threads.length, 1);
      assert.equal(threads[0]!.cwd, project, "thread/start ran in the server's folder");
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });

  test("a recent project can be chosen; a folder the server refuses shows why and keeps the message", async () => {
    const client = await f.server.client();
    await client.request("thread/start", { cwd: other });
    const opened = await openPage(f.browser, f.server);
    const { page } = opened;
    try {
      await page.locator("nav.sidebar[data-loaded='true']").waitFor();
      const recent = page.getByRole("group", { name: "Recent projects" });
      await recent.getByRole("button", { name: "other-project" }).click();
      assert.equal(await page.getByLabel("Project folder").inputValue(), other);
      assert.equal(await recent.getByRole("button", { name: "other-project" }).getAttribute("aria-pressed"), "true");

      await page.getByLabel("Project folder").fill(join(other, "no-such-folder"));
      const box = page.getByRole("textbox", { name: "Message", exact: true });
      await box.fill("this goes nowhere");
      await box.press("Enter");
      await page.getByRole("alert").filter({ hasText: "Could not start the thread" }).waitFor();
      assert.equal(await box.inputValue(), "this goes nowhere", "the message is back in the box");
    } finally {
      await opened.close();
    }
  });

  for (const viewport of [DESKTOP, NARROW]) {
    test(`the first screen and the open palette pass axe at ${viewport.width} px`, async () => {
      const opened = await openPage(f.browser, f.server, viewport);
      const { page } = opened;
      try {
        await page.locator("nav.sidebar[data-loaded='true']").waitFor();
        await waitUntilAsync("the message box to have the focus", async () => (await messageBoxFocused(page)) || undefined, WAIT_MS);
        const first = await screenAndAudit(page, "start-screen");
        assert.equal(first.length, 0, describeViolations(first));

        await page.keyboard.press("Control+K");
        const palette = page.getByRole("dialog", { name: "Command palette" });
        await palette.getByRole("combobox", { name: "Thread or command" }).waitFor();
        await palette.getByRole("option").first().waitFor();
        const open = await screenAndAudit(page, "palette");
        assert.equal(open.length, 0, describeViolations(open));
        await page.keyboard.press("Escape");
        await palette.waitFor({ state: "detached" });
        // The focus goes back once the dialog has gone: wait for it rather than read it at once.
        await waitUntilAsync("the focus back in the message box", async () => (await messageBoxFocused(page)) || undefined, WAIT_MS);
      } finally {
        await opened.close();
      }
    });
  }
});
