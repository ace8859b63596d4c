import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import type { Browser } from "playwright-core";
import { ScriptedModelServer } from "@knightcode/testkit";
import { DESKTOP, launchBrowser, openPage, type OpenedPage, type Viewport } from "./browser.js";
import { DesktopServer, type DesktopOptions } from "./desktop.js";

export interface SuiteOptions {
  /** false: the server has no configured provider, and no scripted model runs. */
  model?: boolean;
  /**
   * The server's options beyond the model. Runs before the server starts, so it
   * may make folders the server needs; it hands their removal to `suite.release`.
   */
  server?: (suite: DesktopSuite) => DesktopOptions | Promise<DesktopOptions>;
  /** The file's own setup (threads, files), once the model, the server and the browser are up. */
  setup?: (suite: DesktopSuite) => void | Promise<void>;
}

/** What one browser test file shares across its tests; the getters answer once `before` ran. */
export interface DesktopSuite {
  readonly model: ScriptedModelServer;
  readonly server: DesktopServer;
  readonly browser: Browser;
  /** Stops the server (if it still runs) and starts it again on the same port, token and home; `server` is the new one. */
  restart(): Promise<DesktopServer>;
  /** The page opened on one thread. */
  openThread(threadId: string, viewport?: Viewport): Promise<OpenedPage>;
  /** Something to undo after the file's tests (or at once, when the setup fails), the last registered first. */
  release(undo: () => unknown): void;
  /** A fresh folder under the system's temporary one, removed after the file's tests. */
  tempDir(prefix: string): string;
}

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the suite's ${what} is not started: its before hook has not run, or failed`);
  return value;
}

/**
 * Registers before/after hooks for one test file: a scripted model, a
 * `knightcode desktop` on it and a headless browser. Whatever started is
 * released afterwards, also when a start fails half way.
 */
export function desktopSuite(options: SuiteOptions = {}): DesktopSuite {
  let model: ScriptedModelServer | undefined;
  let server: DesktopServer | undefined;
  let browser: Browser | undefined;
  const undo: Array<() => unknown> = [];

  const releaseAll = async (): Promise<void> => {
    const errors: unknown[] = [];
    for (const step of undo.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, "releasing the desktop suite");
  };

  const suite: DesktopSuite = {
    get model() {
      return started(model, "model");
    },
    get server() {
      return started(server, "server");
    },
    get browser() {
      return started(browser, "browser");
    },
    async restart() {
      server = await started(server, "server").restart();
      return server;
    },
    openThread(threadId, viewport = DESKTOP) {
      const current = suite.server;
      return openPage(suite.browser, current, viewport, current.threadUrl(threadId));
    },
    release(step) {
      undo.push(step);
    },
    tempDir(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      undo.push(() => rmSync(dir, { recursive: true, force: true }));
      return dir;
    },
  };

  before(async () => {
    try {
      if (options.model !== false) {
        const scripted = await ScriptedModelServer.start();
        model = scripted;
        undo.push(() => scripted.close());
      }
      const serverOptions = (await options.server?.(suite)) ?? {};
      const first = await DesktopServer.start({ ...serverOptions, model });
      server = first;
      // A restarted server is given its home, so its dispose keeps it: the first one's is removed here.
      if (serverOptions.home === undefined) undo.push(() => rmSync(first.home, { recursive: true, force: true }));
      undo.push(() => server?.dispose());
      const launched = await launchBrowser();
      browser = launched;
      undo.push(() => launched.close());
      await options.setup?.(suite);
    } catch (error) {
      await releaseAll().catch(() => undefined);
      throw error;
    }
  });
  after(releaseAll);
  return suite;
}

/**
 * A desktop suite with a test file's own setup on top: a fixture of a group
 * of files extends it and overrides `setup`, and reads the suite's parts.
 */
export class SuiteFixture {
  private readonly desktop: DesktopSuite;

  constructor(options: Omit<SuiteOptions, "setup"> = {}) {
    this.desktop = desktopSuite({ ...options, setup: (suite) => this.setup(suite) });
  }

  /** Runs in `before`, once the model, the server and the browser are up. */
  protected setup(_suite: DesktopSuite): void | Promise<void> {}

  get server(): DesktopServer {
    return this.desktop.server;
  }

  get model(): ScriptedModelServer {
    return this.desktop.model;
  }

  get browser(): Browser {
    return this.desktop.browser;
  }

  restart(): Promise<DesktopServer> {
    return this.desktop.restart();
  }

  openThread(threadId: string, viewport: Viewport = DESKTOP): Promise<OpenedPage> {
    return this.desktop.openThread(threadId, viewport);
  }
}
