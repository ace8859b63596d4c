import { strict as assert } from "node:assert";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import { waitUntilAsync } from "@knightcode/testkit";
import { DESKTOP, describeViolations, NARROW, screenAndAudit, type OpenedPage } from "./support/browser.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

/** A 1x1 PNG, for a user message's thumbnail. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

describe("the transcript", { skip: NO_BROWSER }, () => {
  const f = desktopSuite({
    server: (suite) => {
      // Retries after a cut stream come at once, not after the default back-off.
      const home = suite.tempDir("kc-transcript-");
      mkdirSync(join(home, ".knightcode", "agent"), { recursive: true });
      writeFileSync(
        join(home, ".knightcode", "agent", "settings.json"),
        JSON.stringify({ retry: { provider: { baseDelayMs: 1, maxRetryDelayMs: 5, maxRetries: 2 } } }),
      );
      return { home };
    },
  });

  /** A thread that needs no approvals, on the reasoning model, opened in the page before anything runs. */
  async function openThread(files: Record<string, string> = {}, viewport = DESKTOP): Promise<{ threadId: string; opened: OpenedPage }> {
    const client = await f.server.client();
    const { thread } = await client.request("thread/start", {
      cwd: f.server.project(files),
      approvalMode: "fullAccess",
      model: { provider: "scripted", id: "scripted-reasoner" },
    });
    const opened = await f.openThread(thread.id, viewport);
    await opened.page.locator(`section.transcript[data-thread="${thread.id}"]`).waitFor();
    return { threadId: thread.id, opened };
  }

  async function runTurn(threadId: string, text: string, extra: { images?: { mimeType: "image/png"; data: string }[] } = {}) {
    const client = await f.server.client();
    const run = await client.runTurn(threadId, { text, ...extra });
    return run.completed;
  }

  function turnEl(page: Page, turnId: string) {
    return page.locator(`[data-turn-id="${turnId}"]`);
  }

  test("reasoning, a tool call and streamed text render in order; reasoning collapsed, the call expandable; the final text is the completed item's", async () => {
    const { threadId, opened } = await openThread({ "notes.txt": "the secret is 42\n" });
    const { page } = opened;
    try {
      f.model.enqueue(
        { reasoning: ["Let me ", "read the notes."], toolCalls: [{ id: "call_read", name: "read", arguments: { path: "notes.txt" } }] },
        { text: ["The notes ", "say **42**.\n\n", "```\nconsole.log(42)\n```\n", "- one\n- `two`"] },
      );
      const client = await f.server.client();
      const completions: { id: string; type: string; text?: string }[] = [];
      client.onNotification("item/completed", (p) => p.threadId === threadId && completions.push(p.item as never));
      const turn = await (await client.runTurn(threadId, "what do the notes say?")).completed;
      assert.equal(turn.status, "completed");
      const el = turnEl(page, turn.id);
      await el.and(page.locator("[data-turn-status='completed']")).waitFor();
      const types = await el.locator("[data-item-type]").evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-item-type")));
      assert.deepEqual(types, ["userMessage", "reasoning", "toolCall", "agentMessage"]);
      // Reasoning is there but closed.
      const reasoning = el.locator("details.reasoning");
      assert.equal(await reasoning.evaluate((d) => (d as HTMLDetailsElement).open), false);
      // The tool call opens by keyboard and shows its input and output.
      const summary = el.locator(".tool-call > summary");
      await summary.focus();
      await page.keyboard.press("Enter");
      await el.locator(".tool-body", { hasText: '"path": "notes.txt"' }).waitFor();
      await el.locator(".tool-output", { hasText: "the secret is 42" }).waitFor();
      // Markdown-lite: bold, a code block, a list with inline code; nothing as raw markup.
      const answer = el.locator("[data-item-type='agentMessage']");
      await answer.locator("strong", { hasText: "42" }).waitFor();
      await answer.locator("pre.md-code", { hasText: "console.log(42)" }).waitFor();
      await answer.locator("li code", { hasText: "two" }).waitFor();
      // What the page shows is the text item/completed gave, not only what streamed.
      const final = completions.find((i) => i.type === "agentMessage")!;
      const shownText = await answer.innerText();
      for (const piece of ["The notes say 42.", "console.log(42)", "one", "two"]) {
        assert.ok(final.text!.replace(/\*\*/g, "").includes(piece) && shownText.includes(piece), piece);
      }
      // Usage of the turn and of the thread.
      await el.locator(".turn-usage", { hasText: / in · \d[\d,]* out · \$/ }).waitFor();
      await page.locator(".thread-usage", { hasText: /\$\d+\.\d+ · context/ }).waitFor();
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });

  test("a write shows its file change as a diff with added lines marked", async () => {
    const { threadId, opened } = await openThread();
    const { page } = opened;
    try {
      f.model.enqueue({ toolCalls: [{ id: "call_write", name: "write", arguments: { path: "hello.txt", content: "hello\nworld\n" } }] }, { text: "Written." });
      const turn = await runTurn(threadId, "write hello");
      const el = turnEl(page, turn.id);
      await el.locator(".tool-call > summary", { hasText: "hello.txt" }).click();
      await el.locator(".file-change", { hasText: "Added hello.txt" }).waitFor();
      await el.locator(".diff-add", { hasText: "+hello" }).waitFor();
      await el.locator(".diff-add", { hasText: "+world" }).waitFor();
    } finally {
      await opened.close();
    }
  });

  test("a huge tool output arrives as a reference; Load full output reads it and shows its tail", async () => {
    const { threadId, opened } = await openThread();
    const { page } = opened;
    try {
      // 2,000 lines: taller than the box, so where it is scrolled to shows.
      const command = "node -e \"process.stdout.write(('x'.repeat(99) + '\\\\n').repeat(2000) + 'THE-END')\"";
      f.model.enqueue({ toolCalls: [{ id: "call_big", name: "bash", arguments: { command } }] }, { text: "done" });
      const turn = await runTurn(threadId, "big output");
      const el = turnEl(page, turn.id);
      await el.locator(".tool-call > summary").click();
      const load = el.getByRole("button", { name: /Load full output \(\d+ KB\)/ });
      await load.click();
      const full = el.locator(".loaded-payload");
      await full.waitFor();
      const text = await full.textContent();
      assert.ok(text!.endsWith("THE-END"), text!.slice(-40));
      // More than the 16 KiB a field may carry inline: the whole output came back, not a preview.
      assert.ok(text!.length > 16 * 1024, `${text!.length} characters`);
      // Shown scrolled to its end: the tail is what the reader sees.
      await waitUntilAsync(
        "the output scrolled to its end",
        () => full.evaluate((p) => p.scrollTop > 0 && p.scrollTop + p.clientHeight >= p.scrollHeight - 2),
        WAIT_MS,
      );
    } finally {
      await opened.close();
    }
  });

  test("a long history shows the newest turns first and loads older pages on scrolling up, keeping the place", async () => {
    const client = await f.server.client();
    const { thread } = await client.request("thread/start", { cwd: f.server.project(), model: { provider: "scripted", id: "scripted-model" } });
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      f.model.enqueue({ text: `answer number ${i}` });
      ids.push((await (await client.runTurn(thread.id, `question ${i}`)).completed).id);
    }
    await client.request("thread/unsubscribe", { threadId: thread.id });
    const opened = await f.openThread(thread.id);
    const { page } = opened;
    try {
      await turnEl(page, ids.at(-1)!).waitFor();
      assert.equal(await turnEl(page, ids[0]!).count(), 0, "the oldest page waits");
      // Pinned to the bottom: the newest turn is in view.
      await waitUntilAsync(
        "the newest turn in view",
        () => turnEl(page, ids.at(-1)!).evaluate((t) => t.getBoundingClientRect().bottom <= window.innerHeight + 1),
        WAIT_MS,
      );
      const scroller = page.locator(".transcript-scroll");
      const firstShown = await page.locator("[data-turn-id]").first().getAttribute("data-turn-id");
      await scroller.evaluate((s) => s.scrollTo({ top: 0 }));
      await turnEl(page, ids[0]!).waitFor();
      // The turn that was at the top stays near where it was instead of jumping away.
      const top = await turnEl(page, firstShown!).evaluate((t) => t.getBoundingClientRect().top);
      assert.ok(top > 0, `the earlier first turn is still below the new ones (${top})`);
      const order = await page.locator("[data-turn-id]").evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-turn-id")));
      assert.deepEqual(order, ids);
    } finally {
      await opened.close();
    }
  });

  test("while a reply streams the view follows the bottom; scrolled up it stays put and offers Jump to latest", async () => {
    const { threadId, opened } = await openThread();
    const { page } = opened;
    try {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const lines = Array.from({ length: 300 }, (_, n) => `line ${n}\n\n`);
      f.model.enqueue({ text: lines, pauseAfter: 150, gate });
      const client = await f.server.client();
      const run = await client.runTurn(threadId, "a long answer");
      const scroller = page.locator(".transcript-scroll");
      const answer = page.locator(`[data-turn-id="${run.turnId}"] [data-item-type='agentMessage']`);
      await answer.getByText("line 140", { exact: true }).waitFor();
      // Following: the newest line is in view without anyone scrolling.
      await waitUntilAsync(
        "the view at the bottom",
        () => scroller.evaluate((s) => s.scrollHeight > s.clientHeight && s.scrollHeight - s.scrollTop - s.clientHeight < 2),
        WAIT_MS,
      );
      await page.locator(".turn-status.working[role='status']", { hasText: "Working…" }).waitFor();
      await scroller.evaluate((s) => s.scrollTo({ top: 100 }));
      const jump = page.getByRole("button", { name: "Jump to latest" });
      await jump.waitFor();
      release();
      await run.completed;
      await page.locator(`[data-turn-id="${run.turnId}"][data-turn-status="completed"]`).waitFor();
      await answer.getByText("line 299", { exact: true }).waitFor();
      assert.equal(await scroller.evaluate((s) => Math.round(s.scrollTop)), 100, "the reader's place was kept");
      await jump.click();
      await waitUntilAsync("back at the bottom", () => scroller.evaluate((s) => s.scrollHeight - s.scrollTop - s.clientHeight < 2), WAIT_MS);
      await jump.waitFor({ state: "detached" });
    } finally {
      await opened.close();
    }
  });

  test("2,000 deltas are drawn in batches, once a frame, not once each", async () => {
    const { threadId, opened } = await openThread();
    const { page } = opened;
    try {
      // Counts the times the page changed the transcript's DOM: one MutationObserver callback per task that did.
      await page.evaluate(() => {
        const counter = { batches: 0 };
        (globalThis as unknown as { __batches: typeof counter }).__batches = counter;
        new MutationObserver(() => counter.batches++).observe(document.querySelector(".transcript")!, { subtree: true, childList: true, characterData: true });
      });
      f.model.enqueue({ text: Array.from({ length: 2000 }, (_, n) => `w${n} `) });
      const turn = await runTurn(threadId, "stream");
      await turnEl(page, turn.id).locator("[data-item-type='agentMessage']", { hasText: "w1999" }).waitFor();
      await turnEl(page, turn.id).and(page.locator("[data-turn-status='completed']")).waitFor();
      const batches = await page.evaluate(() => (globalThis as unknown as { __batches: { batches: number } }).__batches.batches);
      assert.ok(batches < 400, `${batches} DOM updates for 2,000 deltas`);
    } finally {
      await opened.close();
    }
  });

  test("a cut stream: the torn reply goes, a retrying note shows, and the retried answer stays; a failed turn says why", async () => {
    const { threadId, opened } = await openThread();
    const { page } = opened;
    try {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      f.model.enqueue({ text: ["The answer ", "is cut", " off here"], breakAfter: 3 }, { text: ["The whole ", "answer."], pauseAfter: 1, gate });
      const client = await f.server.client();
      const run = await client.runTurn(threadId, "answer me");
      const el = turnEl(page, run.turnId);
      await el.locator(".turn-status[role='status']", { hasText: /Retrying \(1 of \d+\) after: / }).waitFor();
      assert.equal(await el.getByText("is cut").count(), 0, "the withdrawn reply is gone");
      release();
      await run.completed;
      await el.and(page.locator("[data-turn-status='completed']")).waitFor();
      await el.locator("[data-item-type='agentMessage']", { hasText: "The whole answer." }).waitFor();
      assert.equal(await el.locator("[data-item-type='agentMessage']").count(), 1);
      assert.equal(await el.locator(".turn-status").count(), 0, "no note once it completed");

      f.model.enqueue({ status: 401, body: { error: { message: "Invalid API key for this test" } } });
      const failed = await runTurn(threadId, "again");
      assert.equal(failed.status, "failed");
      await turnEl(page, failed.id)
        .locator("[role='alert']", { hasText: /Failed: .*Invalid API key for this test/ })
        .waitFor();
    } finally {
      await opened.close();
    }
  });

  test("every item kind passes the accessibility audit, light and dark, desktop and narrow", async () => {
    const { threadId, opened } = await openThread({ "a.txt": "alpha\n" });
    try {
      f.model.enqueue(
        { reasoning: "Thinking it over.", toolCalls: [{ id: "call_edit", name: "edit", arguments: { path: "a.txt", oldText: "alpha\n", newText: "beta\n" } }] },
        { text: "Changed `a.txt`:\n\n1. alpha\n2. beta\n\nSee [the docs](https://example.com)." },
      );
      await runTurn(threadId, "change a", { images: [{ mimeType: "image/png", data: PNG }] });
      f.model.enqueue({ toolCalls: [{ id: "call_missing", name: "read", arguments: { path: "missing.txt" } }] }, { text: "It is missing." });
      await runTurn(threadId, "read the missing file");
      f.model.enqueue({ text: "Summary: a.txt now says beta." });
      const client = await f.server.client();
      await client.request("thread/compact/start", { threadId });
      await opened.page.locator("[data-item-type='compaction']").waitFor();
      for (const call of await opened.page.locator(".tool-call > summary").all()) await call.click();
      await opened.page.locator(".diff-del", { hasText: "-alpha" }).waitFor();
      await opened.page.locator("img.thumb").waitFor();
      for (const scheme of ["light", "dark"] as const) {
        await opened.page.emulateMedia({ colorScheme: scheme });
        for (const [name, viewport] of [
          ["desktop", DESKTOP],
          ["narrow", NARROW],
        ] as const) {
          await opened.page.setViewportSize(viewport);
          const violations = await screenAndAudit(opened.page, `transcript-${scheme}-${name}`);
          assert.deepEqual(violations, [], describeViolations(violations));
        }
      }
    } finally {
      await opened.close();
    }
  });
});
