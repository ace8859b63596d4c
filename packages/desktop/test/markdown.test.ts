import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import type { Locator, Page } from "playwright-core";
import { waitUntilAsync } from "@knightcode/testkit";
import { DESKTOP, describeViolations, NARROW, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

const CODE = "const answer: number = 42;\nconsole.log(answer);";
const REPLY = [
  "Here is **the plan**, with `inline code`.",
  "",
  "| file | lines |",
  "| :--- | ---: |",
  "| a.ts | 12 |",
  "| b.ts | 30 |",
  "",
  "> Quoted advice",
  "> on two lines.",
  "",
  "- outer one",
  "  - inner a",
  "  - inner b",
  "- outer two",
  "",
  "Read [the docs](https://example.com/docs) but not [this one](javascript:alert(1)).",
  "",
  "```ts",
  CODE,
  "```",
].join("\n");
const ASK = "Show me the plan";

describe("Markdown in a reply", { skip: NO_BROWSER }, () => {
  const f = desktopSuite();

  /** A thread whose one turn asked for the plan and got REPLY, streamed in pieces; the page is opened on it. */
  async function threadWithReply() {
    const client = await f.server.client();
    const { thread } = await client.request("thread/start", {
      cwd: f.server.project({}),
      approvalMode: "fullAccess",
      model: { provider: "scripted", id: "scripted-reasoner" },
    });
    const opened = await f.openThread(thread.id);
    await opened.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: f.server.origin });
    // Streamed in pieces that cut through the table and the fence: what the page keeps is the whole.
    f.model.enqueue({ text: [REPLY.slice(0, 60), REPLY.slice(60, 200), REPLY.slice(200)] });
    const turn = await (await client.runTurn(thread.id, ASK)).completed;
    assert.equal(turn.status, "completed");
    const el = opened.page.locator(`[data-turn-id="${turn.id}"]`);
    await el.and(opened.page.locator("[data-turn-status='completed']")).waitFor();
    return { opened, answer: el.locator("[data-item-type='agentMessage']"), question: el.locator("[data-item-type='userMessage']") };
  }

  function clipboard(page: Page): Promise<string> {
    return page.evaluate(() => navigator.clipboard.readText());
  }

  async function copied(page: Page, button: Locator, expected: string): Promise<void> {
    await button.click();
    await waitUntilAsync(`the clipboard to hold ${JSON.stringify(expected.slice(0, 30))}`, async () => (await clipboard(page)) === expected);
  }

  test("a table, a quote, a nested list, links and highlighted code render as what they are; copy buttons copy", async () => {
    const { opened, answer, question } = await threadWithReply();
    const { page } = opened;
    try {
      // The table, with its header cells and rows.
      const table = answer.getByRole("table");
      await table.getByRole("columnheader", { name: "file" }).waitFor();
      await table.getByRole("cell", { name: "b.ts" }).waitFor();
      assert.equal(await table.getByRole("row").count(), 3);
      // The quote.
      await answer.getByRole("blockquote").filter({ hasText: "Quoted advice" }).waitFor();
      // A list inside a list item.
      const inner = answer.getByRole("listitem").filter({ hasText: "outer one" }).getByRole("list");
      assert.deepEqual(await inner.getByRole("listitem").allInnerTexts(), ["inner a", "inner b"]);
      await answer.locator("strong", { hasText: "the plan" }).waitFor();
      // A web link opens apart from the page; a script address is only text.
      const docs = answer.getByRole("link", { name: "the docs" });
      assert.equal(await docs.getAttribute("href"), "https://example.com/docs");
      assert.equal(await docs.getAttribute("target"), "_blank");
      assert.equal(await docs.getAttribute("rel"), "noopener noreferrer");
      await answer.getByText("this one").waitFor();
      assert.equal(await answer.getByRole("link", { name: "this one" }).count(), 0);
      assert.equal(await answer.locator("a").count(), 1);
      // The code block names its language and its tokens are coloured.
      const block = answer.locator(".md-code-block");
      await block.getByText("ts", { exact: true }).waitFor();
      await block.locator(".hljs-keyword", { hasText: "const" }).first().waitFor();
      await block.locator(".hljs-number", { hasText: "42" }).waitFor();
      assert.equal(await block.locator("code").innerText(), CODE);
      const color = (loc: Locator) => loc.evaluate((e) => getComputedStyle(e).color);
      assert.notEqual(await color(block.locator(".hljs-keyword").first()), await color(block.locator("code")));
      // Its copy button copies the code alone, and says so.
      await copied(page, block.getByRole("button", { name: "Copy ts code" }), CODE);
      await block.getByRole("status").filter({ hasText: "Copied" }).waitFor();
      // Each message's button copies the message as written.
      await copied(page, answer.getByRole("button", { name: "Copy message" }), REPLY);
      await copied(page, question.getByRole("button", { name: "Copy message" }), ASK);
      assert.deepEqual(opened.consoleErrors, []);
      assert.deepEqual(opened.foreignRequests, []);
    } finally {
      await opened.close();
    }
  });

  test("a reply with Markdown passes the accessibility audit, light and dark, desktop and narrow", async () => {
    const { opened, answer } = await threadWithReply();
    const { page } = opened;
    try {
      await answer.locator(".hljs-keyword").first().waitFor();
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const [name, viewport] of [
          ["desktop", DESKTOP],
          ["narrow", NARROW],
        ] as const) {
          await page.setViewportSize(viewport);
          await answer.scrollIntoViewIfNeeded();
          const violations = await screenAndAudit(page, `markdown-${scheme}-${name}`);
          assert.deepEqual(violations, [], describeViolations(violations));
        }
      }
    } finally {
      await opened.close();
    }
  });
});
