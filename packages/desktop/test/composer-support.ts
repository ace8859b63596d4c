import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RecordedRequest, waitUntilAsync } from "@knightcode/testkit";
import type { Page } from "playwright-core";
import { DESKTOP, type OpenedPage, type Viewport } from "./support/browser.js";
import { WAIT_MS } from "./support/desktop.js";
import { type DesktopSuite, SuiteFixture } from "./support/suite.js";

/** A 1×1 PNG, enough for a model request to carry an image. */
export const PNG_1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export function hasFd(): boolean {
  return ["fdfind", "fd"].some((name) => {
    try {
      execFileSync("which", [name], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  });
}

/** A gate the scripted model holds a reply on until the test opens it. */
export function held(): { gate: Promise<void>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { gate, release };
}

/** waitUntil for a probe that has to ask (the server, the page) before it knows. */
export const until = <T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> => waitUntilAsync(what, probe, WAIT_MS);

/** The messages a model request carried, as text to search. */
export const sent = (request: RecordedRequest): string => JSON.stringify(request.body.messages ?? []);

/**
 * One server with the scripted model, a prompt template and a project, and
 * one browser: what each composer test file shares across its tests.
 */
export class ComposerSuite extends SuiteFixture {
  project = "";

  protected override setup(suite: DesktopSuite): void {
    const prompts = join(suite.server.agentDir, "prompts");
    mkdirSync(prompts, { recursive: true });
    writeFileSync(join(prompts, "review-changes.md"), "---\ndescription: Review the working tree's changes\n---\nReview the changes $@\n");
    this.project = suite.server.project({ "README.md": "# p\n", "src/needle-file.ts": "export const needle = 1;\n" });
  }

  /** A fresh thread in the project, opened in a page with its composer ready. */
  async newThread(viewport: Viewport = DESKTOP): Promise<{ threadId: string; opened: OpenedPage; page: Page }> {
    const client = await this.server.client();
    const { thread } = await client.request("thread/start", { cwd: this.project, approvalMode: "fullAccess" });
    const opened = await this.openThread(thread.id, viewport);
    await opened.page.getByLabel("Message", { exact: true }).waitFor();
    return { threadId: thread.id, opened, page: opened.page };
  }

  /** Waits until the thread is idle with at least `count` ended turns, as thread/read tells. */
  async turnsEnded(threadId: string, count: number): Promise<void> {
    const client = await this.server.client();
    await until(`${count} turns of ${threadId} to end`, async () => {
      const read = await client.request("thread/read", { threadId });
      const ended = read.turns.filter((t) => t.status !== "inProgress").length;
      return read.thread.status.type === "idle" && ended >= count;
    });
  }

  /** The model request, among those from `since` on, whose messages contain `text`. */
  requestWith(text: string, since = 0): RecordedRequest | undefined {
    return this.model.requests.slice(since).find((r) => sent(r).includes(text));
  }

  /**
   * Starts a turn ("start the work") whose reply `hold` keeps running, steers it
   * with Ctrl+Enter ("also check the tests"), opens the hold, and waits until the
   * steer reached the model and the one turn ended.
   */
  async steerHeldTurn(page: Page, threadId: string, hold: { gate: Promise<void>; release: () => void }): Promise<void> {
    this.model.enqueue({ text: ["looking"], pauseAfter: 1, gate: hold.gate }, { text: "steered answer" });
    const box = page.getByLabel("Message", { exact: true });
    await box.fill("start the work");
    await box.press("Enter");
    await page.getByRole("button", { name: "Steer" }).waitFor();
    const before = this.model.requests.length;
    await box.fill("also check the tests");
    await box.press("Control+Enter");
    // Accepted as a steer before the reply goes on, so it joins this turn rather than starting the next.
    await page.locator("[data-queue-kind='steering']", { hasText: "also check the tests" }).waitFor();
    hold.release();
    await until("the steer to reach the model", async () => this.requestWith("also check the tests", before));
    await this.turnsEnded(threadId, 1);
  }
}

/** Registers the composer tests' before/after hooks; the suite's getters answer once `before` ran. */
export function composerSuite(): ComposerSuite {
  return new ComposerSuite();
}
