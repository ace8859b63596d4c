import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import type { AppServerClient, WebSocketTransport } from "@knightcode/app-server-client";
import { initRepo, ScriptedModelServer } from "@knightcode/testkit";
import { DESKTOP, launchBrowser, openPage, type OpenedPage, type Viewport } from "./support/browser.js";
import { DesktopServer } from "./support/desktop.js";

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
export class WorkspaceFixture {
  private repos = 0;
  private constructor(
    readonly server: DesktopServer,
    readonly model: ScriptedModelServer,
    readonly client: AppServerClient<WebSocketTransport>,
    readonly browser: Browser,
    private readonly bin: string,
  ) {}

  static async start(): Promise<WorkspaceFixture> {
    const model = await ScriptedModelServer.start();
    // git and nothing else on the server's PATH, so a gh on this machine cannot answer for the pull request.
    const bin = join(realpathSync(tmpdir()), `kc-ws-bin-${process.pid}`);
    mkdirSync(bin, { recursive: true });
    if (!existsSync(join(bin, "git"))) symlinkSync(execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim(), join(bin, "git"));
    const server = await DesktopServer.start({ model, env: { PATH: bin, GIT_CONFIG_NOSYSTEM: "1" } });
    const client = await server.client();
    const browser = await launchBrowser();
    return new WorkspaceFixture(server, model, client, browser, bin);
  }

  async dispose(): Promise<void> {
    await this.browser.close();
    await this.server.dispose();
    await this.model.close();
    rmSync(this.bin, { recursive: true, force: true });
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
    const opened = await openPage(this.browser, this.server, viewport, this.server.threadUrl(threadId));
    await opened.page.getByRole("button", { name: new RegExp(`^${which} \\(`) }).click();
    await opened.page.getByRole("complementary", { name: which }).waitFor();
    return opened;
  }
}
