import { strict as assert } from "node:assert";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { ServerRequestParams } from "@knightcode/app-server-protocol";
import { waitUntil } from "@knightcode/testkit";
import { describeViolations, DESKTOP, screenAndAudit, type OpenedPage } from "./support/browser.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { askThroughPage, call, waitForToolResult } from "./requests-helpers.js";
import { desktopSuite } from "./support/suite.js";

type ApprovalParams = ServerRequestParams<"item/toolCall/requestApproval">;

/**
 * Door 13 of issue 27: what the approval card shows is what would run. A
 * command cannot hide behind characters that draw nothing or reorder the
 * line, and an input too large for the request line is read and shown,
 * never an empty card.
 */
describe("the approval card shows every character of what it asks about", { skip: NO_BROWSER }, () => {
  const f = desktopSuite();

  async function threadOnPage() {
    const client = await f.server.client();
    const project = f.server.project();
    const { thread } = await client.request("thread/start", { cwd: project, approvalMode: "ask" });
    const opened = await f.openThread(thread.id);
    await opened.page.locator(".thread-place", { hasText: project }).waitFor();
    return { project, thread, opened };
  }

  async function closeAll(opened: OpenedPage): Promise<void> {
    assert.deepEqual(opened.consoleErrors, []);
    await opened.close();
  }

  /** Where the first character of `needle` in the command's text is drawn, from the left. */
  function leftOf(page: Page, needle: string): Promise<number> {
    return page.locator(".request-command").evaluate((pre, needle) => {
      const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const at = node.textContent!.indexOf(needle);
        if (at === -1) continue;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + 1);
        return range.getBoundingClientRect().left;
      }
      throw new Error(`${needle} is not in the command`);
    }, needle);
  }

  test("rm -rf ~ behind a right-to-left override: the override shows as a mark and the command reads in the order it runs", async () => {
    const { thread, opened } = await threadOnPage();
    const { page } = opened;
    try {
      // Drawn as the text says, this reads `echo "" ohce ; ...~ fr- mr ; ""`: an echo, not a deletion.
      const command = `echo "\u202E" ; rm -rf ~/.kc-door-13-not-there ; echo "\u202C"`;
      const bash = call("bash", { command });
      f.model.enqueue({ toolCalls: [bash] }, { text: "ok" });
      const asked = await askThroughPage(f.server, thread.id);
      assert.equal((asked.params as ApprovalParams).input && ((asked.params as ApprovalParams).input as { command: string }).command, command);
      const card = page.getByRole("group", { name: "Allow bash?" });
      const shown = card.getByLabel("Command");
      await shown.waitFor();
      const override = shown.locator(".char-mark", { hasText: "U+202E" });
      await override.waitFor();
      assert.equal(await override.getAttribute("title"), "right-to-left override (U+202E)");
      await shown.locator(".char-mark", { hasText: "U+202C" }).waitFor();
      const text = await shown.textContent();
      assert.match(text ?? "", /rm -rf ~\/\.kc-door-13-not-there/);
      assert.doesNotMatch(text ?? "", /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/, "no bidi control reaches the page's text");
      // Left to right as stored: the mark, then rm, then its target.
      const mark = (await override.boundingBox())!.x;
      const rm = await leftOf(page, "rm -rf");
      const tilde = await leftOf(page, "~/.kc");
      assert.ok(mark < rm && rm < tilde, `drawn in stored order: mark ${mark}, rm ${rm}, ~ ${tilde}`);
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        const violations = await screenAndAudit(page, `request-hidden-characters-${scheme}`);
        assert.equal(violations.length, 0, describeViolations(violations));
      }
      await page.emulateMedia({ colorScheme: "light" });
      await card.getByRole("button", { name: "Decline", exact: true }).click();
      await card.waitFor({ state: "detached" });
      assert.match(await waitForToolResult(f.model, bash.id), /declined/);
    } finally {
      await closeAll(opened);
    }
  });

  test("a 100 KiB write comes as inputRef: the card reads it through payload/read and shows the path and the start of the content", async () => {
    const { thread, project, opened } = await threadOnPage();
    const { page } = opened;
    try {
      const lines: string[] = [];
      for (let i = 1; lines.join("\n").length < 100 * 1024; i++) lines.push(`line ${String(i).padStart(5, "0")} of a large file`);
      const content = `${lines.join("\n")}\n`;
      const write = call("write", { path: "big.txt", content });
      f.model.enqueue({ toolCalls: [write] }, { text: "written" });
      const asked = (await askThroughPage(f.server, thread.id)).params as ApprovalParams;
      assert.equal(asked.input, undefined, "the input is too large for the request line");
      assert.ok(asked.inputRef && asked.inputRef.bytes > 100 * 1024, "it comes as a payload reference");
      const card = page.getByRole("group", { name: "Allow write?" });
      await card.locator(".request-path", { hasText: "big.txt" }).waitFor();
      await card.locator(".diff-add", { hasText: "+line 00001 of a large file" }).waitFor();
      await card.locator(".diff-add", { hasText: "+line 00080 of a large file" }).waitFor();
      assert.equal(await card.locator(".diff-add", { hasText: "line 00081" }).count(), 0, "the preview stops at 80 lines");
      await card.locator(".diff-more", { hasText: `${(lines.length - 80).toLocaleString("en")} more lines` }).waitFor();
      await card.getByRole("button", { name: "Allow once" }).click();
      await waitUntil("the file to be written", () => existsSync(join(project, "big.txt")), WAIT_MS);
      await card.waitFor({ state: "detached" });
      await waitForToolResult(f.model, write.id);
      assert.equal(readFileSync(join(project, "big.txt"), "utf8"), content);
    } finally {
      await closeAll(opened);
    }
  });

  test("an inputRef that cannot be read: the card says so and offers to try again, which shows the input", async () => {
    const client = await f.server.client();
    const project = f.server.project();
    const { thread } = await client.request("thread/start", { cwd: project, approvalMode: "ask" });
    // The page's socket goes through a relay that answers payload/read with the error an expired reference gets until the
    // user tries again. Every read is refused, not only the first: the transcript may read the call's arguments before the card.
    const context = await f.browser.newContext({ viewport: DESKTOP, colorScheme: "light", reducedMotion: "reduce" });
    let refused = 0;
    let refusing = true;
    await context.routeWebSocket(/^ws:/, (ws) => {
      const upstream = ws.connectToServer();
      ws.onMessage((message) => {
        const request = typeof message === "string" ? (JSON.parse(message) as { id?: unknown; method?: string }) : {};
        if (request.method === "payload/read" && refusing) {
          refused++;
          ws.send(JSON.stringify({ id: request.id, error: { code: "invalidParams", message: "unknown payload: it expired" } }));
        } else upstream.send(message);
      });
    });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    try {
      await page.goto(f.server.threadUrl(thread.id));
      await page.waitForSelector("html[data-ready='true']");
      const write = call("write", { path: "refused.txt", content: `${"x".repeat(80)}\n`.repeat(300) });
      f.model.enqueue({ toolCalls: [write] }, { text: "ok" });
      await askThroughPage(f.server, thread.id);
      const card = page.getByRole("group", { name: "Allow write?" });
      const failed = card.getByRole("alert");
      await failed.getByText(/could not be loaded: unknown payload: it expired/).waitFor();
      assert.ok(refused >= 1);
      refusing = false;
      await failed.getByRole("button", { name: "Try again" }).click();
      await card.locator(".request-path", { hasText: "refused.txt" }).waitFor();
      await card.locator(".diff-add").first().waitFor();
      await card.getByRole("button", { name: "Decline", exact: true }).click();
      await card.waitFor({ state: "detached" });
      assert.equal(existsSync(join(project, "refused.txt")), false);
    } finally {
      await context.close();
    }
  });
});
