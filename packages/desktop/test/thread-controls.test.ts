import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { AppServerClient, WebSocketTransport } from "@knightcode/app-server-client";
import { waitUntilAsync } from "@knightcode/testkit";
import { DESKTOP, describeViolations, NARROW, openPage, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

type Client = AppServerClient<WebSocketTransport>;

async function namedThread(client: Client, cwd: string, name: string): Promise<string> {
  const { thread } = await client.request("thread/start", { cwd });
  await client.request("thread/name/set", { threadId: thread.id, name });
  return thread.id;
}

/** The open thread's header title, as the user reads it. */
function title(page: Page) {
  return page.locator("h1.thread-title");
}

async function menuItem(page: Page, name: string): Promise<void> {
  await page.getByRole("button", { name: "Thread actions" }).click();
  await page.getByRole("menu", { name: "Thread actions" }).getByRole("menuitem", { name }).click();
}

describe("thread controls", { skip: NO_BROWSER }, () => {
  let client: Client;
  let project: string;
  const f = desktopSuite({
    setup: async (suite) => {
      client = await suite.server.client();
      project = suite.server.project({ "README.md": "# controls\n" }, "controls");
    },
  });

  test("rename and fork from the thread's menu: the new name reaches the server, the fork opens with the history", async () => {
    const threadId = await namedThread(client, project, "original name");
    f.model.enqueue({ text: "first answer" });
    const done = client.waitFor("thread/turn/completed", (p) => p.threadId === threadId, { timeoutMs: WAIT_MS });
    await client.request("thread/resume", { threadId });
    await client.request("turn/start", { threadId, text: "first question" });
    await done;
    const opened = await f.openThread(threadId);
    const { page } = opened;
    try {
      await title(page).filter({ hasText: "original name" }).waitFor();
      await menuItem(page, "Rename…");
      const dialog = page.getByRole("dialog", { name: "Rename thread" });
      await dialog.getByLabel("Name").fill("renamed from the menu");
      await dialog.getByRole("button", { name: "Rename", exact: true }).click();
      await dialog.waitFor({ state: "detached" });
      await title(page).filter({ hasText: "renamed from the menu" }).waitFor();
      await page.locator(`nav.sidebar [data-thread-id="${threadId}"]`, { hasText: "renamed from the menu" }).waitFor();
      assert.equal((await client.request("thread/read", { threadId })).thread.name, "renamed from the menu");

      await menuItem(page, "Fork");
      await title(page).filter({ hasText: "renamed from the menu (fork)" }).waitFor();
      const forkId = await waitUntilAsync(
        "the page on the fork",
        async () => {
          const id = new URL(page.url()).searchParams.get("thread");
          return id && id !== threadId ? id : undefined;
        },
        WAIT_MS,
      );
      assert.equal((await client.request("thread/read", { threadId: forkId })).thread.forkedFromId, threadId);
      await page.getByRole("region", { name: "Conversation" }).getByText("first answer").waitFor();
    } finally {
      await opened.close();
    }
  });

  test("the Ctrl+K palette opens a thread by keyboard, and Escape puts the focus back", async () => {
    const wanted = await namedThread(client, project, "palette target");
    await namedThread(client, project, "palette decoy");
    const opened = await openPage(f.browser, f.server);
    const { page } = opened;
    try {
      await page.locator("nav.sidebar[data-loaded='true']").waitFor();
      const box = page.getByRole("textbox", { name: "Message", exact: true });
      await box.focus();
      // Escape closes it and the focus returns where it was.
      await page.keyboard.press("Control+K");
      const palette = page.getByRole("dialog", { name: "Command palette" });
      const input = palette.getByRole("combobox", { name: "Thread or command" });
      await input.waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("role")), "combobox");
      await page.keyboard.press("Escape");
      await palette.waitFor({ state: "detached" });
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Message");

      // No wait between the shortcut and the typing: a fast typist's first keys go to the palette, not the composer behind it.
      await page.keyboard.press("Control+K");
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("role")), "combobox");
      await page.keyboard.type("palette");
      const options = palette.getByRole("option");
      // The list follows the typing: wait until it shows the filter's answer, not a list from before it.
      await waitUntilAsync(
        "the palette filtered to the two threads",
        async () => {
          const texts = await options.allTextContents();
          return texts.length === 2 ? texts : undefined;
        },
        WAIT_MS,
      );
      assert.deepEqual(await options.allTextContents(), ["Threadpalette decoycontrols", "Threadpalette targetcontrols"]);
      assert.equal(await box.inputValue(), "");
      assert.equal(await options.first().getAttribute("aria-selected"), "true");
      await page.keyboard.press("ArrowDown");
      const active = await input.getAttribute("aria-activedescendant");
      assert.equal(await palette.locator(`#${active}`).textContent(), "Threadpalette targetcontrols");
      await page.keyboard.press("Enter");
      await palette.waitFor({ state: "detached" });
      await title(page).filter({ hasText: "palette target" }).waitFor();
      assert.equal(new URL(page.url()).searchParams.get("thread"), wanted);
    } finally {
      await opened.close();
    }
  });

  test("archiving the open thread opens the next one in the sidebar, and the first screen when none is left", async () => {
    const lone = f.server.project({ "README.md": "# lone\n" }, "lone");
    const listed = await client.request("thread/list", { limit: 100 });
    for (const t of listed.threads) await client.request("thread/archive", { threadId: t.id });
    const second = await namedThread(client, lone, "second");
    const first = await namedThread(client, lone, "first");
    const opened = await f.openThread(first);
    const { page } = opened;
    try {
      await title(page).filter({ hasText: "first" }).waitFor();
      await page.locator("nav.sidebar [data-thread-id]").nth(1).waitFor();
      await menuItem(page, "Archive…");
      await page.getByRole("dialog").getByRole("button", { name: "Archive", exact: true }).click();
      await title(page).filter({ hasText: "second" }).waitFor();
      assert.equal(new URL(page.url()).searchParams.get("thread"), second);

      await menuItem(page, "Archive…");
      await page.getByRole("dialog").getByRole("button", { name: "Archive", exact: true }).click();
      await page.getByRole("heading", { name: "KnightCode" }).waitFor();
      await page.getByRole("textbox", { name: "Message", exact: true }).waitFor();
      assert.equal(new URL(page.url()).searchParams.get("thread"), null);
    } finally {
      await opened.close();
    }
  });
  test("the thread menu, the rename dialog and the palette: screenshots and axe at desktop and narrow widths, light and dark", async () => {
    const id = await namedThread(client, project, "audited thread");
    const opened = await f.openThread(id);
    const { page } = opened;
    const audit = async (name: string) => {
      for (const viewport of [DESKTOP, NARROW]) {
        await page.setViewportSize(viewport);
        for (const scheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          const violations = await screenAndAudit(page, `${name}${scheme === "dark" ? "-dark" : ""}`);
          assert.deepEqual(violations, [], `${name} at ${viewport.width} px, ${scheme}:\n${describeViolations(violations)}`);
        }
      }
      await page.setViewportSize(DESKTOP);
    };
    try {
      await title(page).filter({ hasText: "audited thread" }).waitFor();
      await page.getByRole("button", { name: "Thread actions" }).click();
      await page.getByRole("menu", { name: "Thread actions" }).getByRole("menuitem").first().waitFor();
      await audit("thread-menu");
      await page.keyboard.press("Escape");
      await page.getByRole("menu", { name: "Thread actions" }).waitFor({ state: "detached" });

      await menuItem(page, "Rename…");
      const dialog = page.getByRole("dialog");
      await dialog.getByRole("textbox").waitFor();
      await audit("rename-dialog");
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "detached" });

      await page.keyboard.press("Control+K");
      const palette = page.getByRole("dialog", { name: "Command palette" });
      await palette.getByRole("option").first().waitFor();
      await audit("palette");
      await page.keyboard.press("Escape");
      await palette.waitFor({ state: "detached" });
    } finally {
      await opened.close();
    }
  });
});
