import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import type { AppServerClient, WebSocketTransport } from "@knightcode/app-server-client";
import { initRepo, writeFiles } from "@knightcode/testkit";
import { DESKTOP, type OpenedPage, type Viewport } from "./support/browser.js";
import { type DesktopSuite, SuiteFixture } from "./support/suite.js";

export const MODEL = { provider: "scripted", id: "scripted-model" };

/** `n` lines `line 1`… with some replaced, each ending in a newline. */
export function lines(n: number, change: Record<number, string> = {}): string {
  return Array.from({ length: n }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join("\n") + "\n";
}

/** A file's text, or undefined while git rewrites it (it unlinks and writes again). */
export function fileText(root: string, path: string): string | undefined {
  try {
    return readFileSync(join(root, path), "utf8");
  } catch {
    return undefined;
  }
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** One server (with the scripted model and only git on its PATH), a Node client on it and a browser, for one test file. */
export class WorkspaceSuite extends SuiteFixture {
  private repos = 0;
  private nodeClient: AppServerClient<WebSocketTransport> | undefined;

  constructor() {
    super({
      server: (suite) => {
        // git and nothing else on the server's PATH, so a gh on this machine cannot answer for the pull request.
        const bin = join(realpathSync(tmpdir()), `kc-ws-bin-${process.pid}`);
        mkdirSync(bin, { recursive: true });
        suite.release(() => rmSync(bin, { recursive: true, force: true }));
        if (!existsSync(join(bin, "git"))) symlinkSync(execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim(), join(bin, "git"));
        return { env: { PATH: bin, GIT_CONFIG_NOSYSTEM: "1" } };
      },
    });
  }

  protected override async setup(suite: DesktopSuite): Promise<void> {
    this.nodeClient = await suite.server.client();
  }

  get client(): AppServerClient<WebSocketTransport> {
    if (!this.nodeClient) throw new Error("the workspace suite's client is not connected: its before hook has not run, or failed");
    return this.nodeClient;
  }

  /** A repository in the server's home with `files` committed on main. */
  repo(files: Record<string, string> = { "a.txt": lines(20) }): string {
    return initRepo(join(this.server.home, `repo-${++this.repos}`), files);
  }

  async thread(cwd: string, extra: { workspace?: { mode: "worktree" }; approvalMode?: "fullAccess" } = {}) {
    return (await this.client.request("thread/start", { cwd, model: MODEL, ...extra })).thread;
  }

  /** One turn of the thread that the model answers with `text`; a thread needs a message before a handoff. */
  async talk(threadId: string, text = "Try something"): Promise<void> {
    this.model.enqueue({ text: "ok" });
    await (await this.client.runTurn(threadId, text)).completed;
  }

  /** The page on a thread, its panel opened with the header's button. */
  async openPanel(threadId: string, which: "Changes" | "Git", viewport: Viewport = DESKTOP): Promise<OpenedPage> {
    const opened = await this.openThread(threadId, viewport);
    await opened.page.getByRole("button", { name: new RegExp(`^${which} \\(`) }).click();
    await opened.page.getByRole("complementary", { name: which }).waitFor();
    return opened;
  }

  /** A repository (a.txt of 20 lines on main) with `changes` written over it, and the page on a thread there with its Changes panel open. */
  async openChanges(changes: Record<string, string>, viewport: Viewport = DESKTOP): Promise<{ root: string; opened: OpenedPage }> {
    const root = this.repo();
    writeFiles(root, changes);
    const thread = await this.thread(root);
    return { root, opened: await this.openPanel(thread.id, "Changes", viewport) };
  }

  /** A repository with line 8 of a.txt changed, its Changes panel open, and `comment` added on that hunk (the line). */
  async commentOnLineEight(comment: string): Promise<{ opened: OpenedPage; page: Page; hunk: Locator }> {
    const { opened } = await this.openChanges({ "a.txt": lines(20, { 8: "line eight" }) });
    try {
      const page = opened.page;
      const hunk = page.locator('[data-path="a.txt"] .ws-hunk').first();
      await hunk.getByRole("button", { name: /^Comment on hunk/ }).click();
      const form = page.getByRole("form", { name: "Review comment" });
      await form.getByLabel("Comment").fill(comment);
      await form.getByRole("button", { name: "Add comment" }).click();
      return { opened, page, hunk };
    } catch (error) {
      await opened.close();
      throw error;
    }
  }
}

/** Registers the workspace tests' before/after hooks; the suite's getters answer once `before` ran. */
export function workspaceSuite(): WorkspaceSuite {
  return new WorkspaceSuite();
}
