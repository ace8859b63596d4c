import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer, waitUntil, type RecordedRequest } from "@knightcode/testkit";
import type { Browser, Page } from "playwright-core";
import { DESKTOP, NARROW, describeViolations, launchBrowser, openPage, screenAndAudit, type OpenedPage } from "./support/browser.js";
import { DesktopServer, NO_BROWSER, WAIT_MS } from "./support/desktop.js";

/** A 1×1 PNG, enough for the model request to carry an image. */
const PNG_1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function hasFd(): boolean {
  for (const name of ["fdfind", "fd"]) {
    try {
      execFileSync("which", [name], { stdio: "ignore" });
      return true;
    } catch {
      // not this one
    }
  }
  return false;
}

/** A gate the scripted model holds a reply on until the test opens it. */
function held() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { gate, release };
}

/** waitUntil for a probe that has to ask (the server, the page) before it knows. */
async function until<T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sent = (request: RecordedRequest) => JSON.stringify(request.body.messages ?? []);

describe("the composer", { skip: NO_BROWSER }, () => {
  let browser: Browser;
  let server: DesktopServer;
  let model: ScriptedModelServer;
  let project: string;
  before(async () => {
    model = await ScriptedModelServer.start();
    server = await DesktopServer.start({ model });
    mkdirSync(join(server.agentDir, "prompts"), { recursive: true });
    writeFileSync(join(server.agentDir, "prompts", "review-changes.md"), "---\ndescription: Review the working tree's changes\n---\nReview the changes $@\n");
    project = server.project({ "README.md": "# p\n", "src/needle-file.ts": "export const needle = 1;\n" });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.dispose();
    await model?.close();
  });

  /** A fresh thread in the project, opened in a page; the composer ready. */
  async function openThread(viewport = DESKTOP): Promise<{ threadId: string; opened: OpenedPage; page: Page }> {
    const client = await server.client();
    const { thread } = await client.request("thread/start", { cwd: project, approvalMode: "fullAccess" });
    const opened = await openPage(browser, server, viewport, server.threadUrl(thread.id));
    await opened.page.getByLabel("Message", { exact: true }).waitFor();
    return { threadId: thread.id, opened, page: opened.page };
  }

  async function turnsEnded(threadId: string, count: number): Promise<void> {
    const client = await server.client();
    await until(`${count} turns of ${threadId} to end`, async () => {
      const read = await client.request("thread/read", { threadId });
      const ended = read.turns.filter((t) => t.status !== "inProgress").length;
      return read.thread.status.type === "idle" && ended >= count;
    });
  }

  test("typing and Enter starts a turn the model receives; the thread ends idle and the box is empty", async () => {
    const { threadId, opened, page } = await openThread();
    try {
      model.enqueue({ text: "Hi there" });
      const before = model.requests.length;
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("hello from the composer");
      await box.press("Enter");
      await waitUntil("the model to get the message", () => model.requests.slice(before).find((r) => sent(r).includes("hello from the composer")), WAIT_MS);
      await turnsEnded(threadId, 1);
      assert.equal(await box.inputValue(), "");
      await page.locator(".composer[data-busy='false']").waitFor();
    } finally {
      await opened.close();
    }
  });

  test("Escape interrupts a running turn: the server reports it interrupted and the composer is usable again", async () => {
    const { threadId, opened, page } = await openThread();
    const hold = held();
    try {
      const client = await server.client();
      const interrupted = client.waitFor("thread/turn/completed", (p) => p.threadId === threadId, { timeoutMs: WAIT_MS });
      model.enqueue({ text: ["working", " more"], pauseAfter: 1, gate: hold.gate });
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("a long job");
      await box.press("Enter");
      await page.getByRole("button", { name: "Interrupt" }).waitFor();
      await box.press("Escape");
      assert.equal((await interrupted).turn.status, "interrupted");
      await page.locator(".composer[data-busy='false']").waitFor();
      await page.getByRole("button", { name: "Interrupt" }).waitFor({ state: "detached" });
      // Usable again: the next message starts a turn of its own.
      model.enqueue({ text: "back" });
      await box.fill("after the interrupt");
      await box.press("Enter");
      await waitUntil("the next message to reach the model", () => model.requests.find((r) => sent(r).includes("after the interrupt")), WAIT_MS);
      await turnsEnded(threadId, 2);
    } finally {
      hold.release();
      await opened.close();
    }
  });

  test("Enter during a turn queues a follow-up, shown above the box, that runs as its own turn afterwards", async () => {
    const { threadId, opened, page } = await openThread();
    const hold = held();
    try {
      model.enqueue({ text: ["first", " reply"], pauseAfter: 1, gate: hold.gate }, { text: "second reply" });
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("first message");
      await box.press("Enter");
      await page.getByRole("button", { name: "Interrupt" }).waitFor();
      await box.fill("queued follow-up");
      await box.press("Enter");
      const queued = page.getByRole("list", { name: "Waiting messages" }).getByRole("listitem").filter({ hasText: "queued follow-up" });
      await queued.waitFor();
      await queued.getByRole("button", { name: /Remove queued message/ }).waitFor();
      assert.ok(!model.requests.some((r) => sent(r).includes("queued follow-up")), "not sent while the first turn runs");
      hold.release();
      await waitUntil("the follow-up to reach the model", () => model.requests.find((r) => sent(r).includes("queued follow-up")), WAIT_MS);
      await turnsEnded(threadId, 2);
      const read = await (await server.client()).request("thread/read", { threadId });
      assert.equal(read.turns.length, 2, "the follow-up ran as a turn of its own");
      await queued.waitFor({ state: "detached" });
    } finally {
      hold.release();
      await opened.close();
    }
  });

  test("Ctrl+Enter steers the running turn: its next model request carries the text", async () => {
    const { threadId, opened, page } = await openThread();
    const hold = held();
    try {
      model.enqueue({ text: ["looking"], pauseAfter: 1, gate: hold.gate }, { text: "steered answer" });
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("start the work");
      await box.press("Enter");
      await page.getByRole("button", { name: "Steer" }).waitFor();
      const before = model.requests.length;
      await box.fill("also check the tests");
      await box.press("Control+Enter");
      await page.locator("[data-queue-kind='steering']", { hasText: "also check the tests" }).waitFor();
      hold.release();
      await waitUntil("the steer to reach the model", () => model.requests.slice(before).find((r) => sent(r).includes("also check the tests")), WAIT_MS);
      await turnsEnded(threadId, 1);
      const read = await (await server.client()).request("thread/read", { threadId });
      assert.equal(read.turns.length, 1, "the steer joined the running turn rather than starting one");
    } finally {
      hold.release();
      await opened.close();
    }
  });

  test("a pasted image shows as a thumbnail and reaches the model; a pasted non-image is refused with a message", async () => {
    const { opened, page } = await openThread();
    try {
      const box = page.getByLabel("Message", { exact: true });
      await box.focus();
      await page.evaluate(
        ({ png }) => {
          const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
          const files = [new File([bytes], "dot.png", { type: "image/png" }), new File(["plain"], "notes.txt", { type: "text/plain" })];
          const data = new DataTransfer();
          for (const file of files) data.items.add(file);
          document.activeElement!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
        },
        { png: PNG_1x1 },
      );
      await page.getByRole("list", { name: "Images to send" }).getByRole("img", { name: "dot.png" }).waitFor();
      await page.locator(".toast", { hasText: "notes.txt is not a PNG, JPEG, GIF or WebP image" }).waitFor();
      model.enqueue({ text: "I see a dot" });
      const before = model.requests.length;
      await box.fill("what is in this picture?");
      await box.press("Enter");
      const request = await waitUntil("the image to reach the model", () => model.requests.slice(before).find((r) => sent(r).includes("what is in this picture?")), WAIT_MS);
      assert.ok(sent(request).includes(PNG_1x1.slice(0, 40)), "the model request carries the image's bytes");
      await page.getByRole("list", { name: "Images to send" }).waitFor({ state: "detached" });
    } finally {
      await opened.close();
    }
  });

  test("@ lists files from file/search as you type and inserts the one picked", { skip: hasFd() ? false : "neither fd nor fdfind is installed" }, async () => {
    const { opened, page } = await openThread();
    try {
      const box = page.getByLabel("Message", { exact: true });
      await box.pressSequentially("look at @needle");
      const option = page.getByRole("listbox", { name: "Files" }).getByRole("option", { name: "src/needle-file.ts" });
      await option.waitFor();
      await box.press("Enter");
      assert.equal(await box.inputValue(), "look at @src/needle-file.ts ");
      await page.getByRole("listbox", { name: "Files" }).waitFor({ state: "detached" });
    } finally {
      await opened.close();
    }
  });

  test("without fd, @ says file search is unavailable once and leaves the typed text as it is", async () => {
    const bin = mkdtempSync(join(tmpdir(), "kc-nofd-"));
    for (const tool of ["git", "sh"]) {
      try {
        symlinkSync(execFileSync("which", [tool], { encoding: "utf8" }).trim(), join(bin, tool));
      } catch {
        // not installed here: the server does without it
      }
    }
    const bare = await DesktopServer.start({ model, env: { PATH: bin } });
    try {
      const client = await bare.client();
      const { thread } = await client.request("thread/start", { cwd: bare.project({ "a.txt": "a\n" }) });
      const opened = await openPage(browser, bare, DESKTOP, bare.threadUrl(thread.id));
      try {
        const box = opened.page.getByLabel("Message", { exact: true });
        await box.pressSequentially("see @a.t");
        await opened.page.locator(".toast", { hasText: "File search is unavailable" }).waitFor();
        await box.pressSequentially("xt");
        assert.equal(await box.inputValue(), "see @a.txt");
        assert.equal(await opened.page.locator(".toast", { hasText: "File search is unavailable" }).count(), 1, "said once");
        assert.equal(await opened.page.getByRole("listbox").count(), 0);
      } finally {
        await opened.close();
      }
    } finally {
      await bare.dispose();
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test("/ at the start lists command/list's commands with their descriptions and inserts the one picked", async () => {
    const { opened, page } = await openThread();
    try {
      const box = page.getByLabel("Message", { exact: true });
      await box.pressSequentially("/review");
      const list = page.getByRole("listbox", { name: "Commands" });
      await list.getByRole("option", { name: /\/review-changes.*Review the working tree's changes/ }).waitFor();
      await box.press("Tab");
      assert.equal(await box.inputValue(), "/review-changes ");
      await list.waitFor({ state: "detached" });
    } finally {
      await opened.close();
    }
  });

  test("the pickers list the scripted models and change the server-side thread's model, thinking level and approval mode", async () => {
    const { threadId, opened, page } = await openThread();
    try {
      const modelPicker = page.getByLabel("Model", { exact: true });
      await modelPicker.locator("option", { hasText: "scripted-reasoner" }).waitFor({ state: "attached" });
      assert.ok((await modelPicker.locator("option").allTextContents()).includes("scripted-model"));
      await modelPicker.selectOption({ label: "scripted-reasoner" });
      const thinking = page.getByLabel("Thinking", { exact: true });
      await thinking.locator("option", { hasText: "high" }).first().waitFor({ state: "attached" });
      await until("the thinking picker to be enabled", () => thinking.isEnabled());
      await thinking.selectOption("high");
      await page.getByLabel("Approvals", { exact: true }).selectOption("ask");
      await until("the page to reflect the settings", async () => (await thinking.inputValue()) === "high" && (await page.getByLabel("Approvals", { exact: true }).inputValue()) === "ask");
      const client = await server.client();
      const { thread } = await client.request("thread/resume", { threadId });
      assert.deepEqual(thread.model, { provider: "scripted", id: "scripted-reasoner" });
      assert.equal(thread.thinkingLevel, "high");
      assert.equal(thread.approvalMode, "ask");
    } finally {
      await opened.close();
    }
  });

  for (const viewport of [DESKTOP, NARROW]) {
    test(`the composer with its popups open passes axe at ${viewport.width} px`, async () => {
      const { opened, page } = await openThread(viewport);
      try {
        const box = page.getByLabel("Message", { exact: true });
        await box.pressSequentially("/");
        await page.getByRole("listbox", { name: "Commands" }).waitFor();
        const commands = await screenAndAudit(page, "composer-commands");
        assert.equal(commands.length, 0, describeViolations(commands));
        if (hasFd()) {
          await box.fill("");
          await box.pressSequentially("see @src");
          await page.getByRole("listbox", { name: "Files" }).waitFor();
          const files = await screenAndAudit(page, "composer-files");
          assert.equal(files.length, 0, describeViolations(files));
        }
      } finally {
        await opened.close();
      }
    });
  }
});
