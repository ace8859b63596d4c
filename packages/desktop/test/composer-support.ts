import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ScriptedModelServer, waitUntilAsync, type RecordedRequest } from "@knightcode/testkit";
import type { Browser, Page } from "playwright-core";
import { DESKTOP, launchBrowser, openPage, type OpenedPage, type Viewport } from "./support/browser.js";
import { DesktopServer, WAIT_MS } from "./support/desktop.js";

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
export class ComposerFixture {
  server!: DesktopServer;
  model!: ScriptedModelServer;
  browser!: Browser;
  project = "";
  private home = "";

  async start(): Promise<void> {
    this.model = await ScriptedModelServer.start();
    this.server = await DesktopServer.start({ model: this.model });
    this.home = this.server.home;
    mkdirSync(join(this.server.agentDir, "prompts"), { recursive: true });
    writeFileSync(
      join(this.server.agentDir, "prompts", "review-changes.md"),
      "---\ndescription: Review the working tree's changes\n---\nReview the changes $@\n",
    );
    this.project = this.server.project({ "README.md": "# p\n", "src/needle-file.ts": "export const needle = 1;\n" });
    this.browser = await launchBrowser();
  }

  async close(): Promise<void> {
    await this.browser?.close();
    await this.server?.dispose();
    await this.model?.close();
    // A restarted server keeps the home it was given: removed here.
    if (this.home) rmSync(this.home, { recursive: true, force: true });
  }

  /** A fresh thread in the project, opened in a page with its composer ready. */
  async openThread(viewport: Viewport = DESKTOP): Promise<{ threadId: string; opened: OpenedPage; page: Page }> {
    const client = await this.server.client();
    const { thread } = await client.request("thread/start", { cwd: this.project, approvalMode: "fullAccess" });
    const opened = await openPage(this.browser, this.server, viewport, this.server.threadUrl(thread.id));
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
}
