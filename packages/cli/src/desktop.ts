import type { ProtocolOutput } from "@knightcode/app-server/cli";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import type { DesktopArgs } from "./args.js";
import { Launcher, type LauncherPage } from "./launcher.js";
import { resolveListenToken, TOKEN_ENV } from "./listen-token.js";
import { startServer } from "./serve.js";

/** Overrides where the page's files are read from: a development build, or test files. */
export const PAGE_ENV = "KNIGHTCODE_DESKTOP_PAGE";

function fail(message: string): never {
  process.stderr.write(`knightcode: ${message}\n`);
  process.exit(2);
}

/**
 * `knightcode desktop`: the app server behind a loopback listener that also
 * serves the web page. There is no stdio connection, so stdin closing (a
 * terminal going away) is not a reason to stop; signals are.
 */
export async function runDesktop(args: DesktopArgs, output: ProtocolOutput): Promise<void> {
  const env = process.env;
  const token = desktopToken(args, env);
  const root = pageRoot(env);
  const websocket = await import("@knightcode/app-server/websocket");
  if (args.readyFile !== undefined) {
    const problem = websocket.readyFileProblem(args.readyFile);
    if (problem) fail(problem);
  }
  let launcher: Launcher | undefined;
  try {
    if (args.open) launcher = new Launcher(env);
  } catch (error) {
    openerNote(`cannot make the launcher's folder: ${error instanceof Error ? error.message : String(error)}`);
  }
  // The launcher holds the token: the read-only tools refuse it as they refuse the token file.
  const secretFiles = [args.listenTokenFile, launcher?.path].filter((path): path is string => path !== undefined);
  const { server } = startServer({ sessionDir: args.sessionDir, extensionPaths: args.extensions, env, secrets: { values: [token], files: secretFiles } });

  let listener: Awaited<ReturnType<typeof websocket.listenWebSocket>>;
  try {
    listener = await websocket.listenWebSocket({
      url: `ws://127.0.0.1:${args.port}`,
      token,
      page: { root, onLaunch: (nonce) => launcher?.used(nonce) },
      onConnection: (transport) => server.connect(transport, "websocket"),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      fail(`port ${args.port} on 127.0.0.1 is in use; choose another with --port, or leave --port out for a free one`);
    }
    fail(`cannot listen: ${error instanceof Error ? error.message : String(error)}`);
  }
  server.onStopInput(() => void listener.stop());
  const address = `127.0.0.1:${listener.port}`;
  const pageUrl = `http://${address}/`;
  // The ready file is for scripts that find the server; the token stays with whoever already has it.
  if (args.readyFile !== undefined) websocket.writeReadyFile(args.readyFile, pageUrl);
  // The token travels in the fragment, which a browser never sends to a server or puts in a Referer; the
  // folder the server was started in goes beside it, as the project the page's first screen offers.
  const fragment = `token=${encodeURIComponent(token)}&project=${encodeURIComponent(process.cwd())}`;
  output.write(`${pageUrl}#${fragment}\n`);
  process.stderr.write(`knightcode desktop: serving ${pageUrl} (open the URL printed on stdout)\n`);
  if (launcher)
    openWithLauncher(launcher, { address, token, project: process.cwd(), proofFor: (nonce) => websocket.launcherProof(token, address, nonce) }, env);
}

/** Writes the launcher for the page at `page.address` and opens the browser on it; a failure is a note, the URL is printed. */
function openWithLauncher(launcher: Launcher, page: LauncherPage, environment: NodeJS.ProcessEnv): void {
  let url: string;
  try {
    url = launcher.write(page);
  } catch (error) {
    launcher.remove();
    openerNote(`cannot write the launcher page: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  openBrowser(url, environment, () => launcher.remove());
}

/** The listener's token: from the token file or the environment when given (so a restart keeps it), else fresh. */
function desktopToken(args: DesktopArgs, environment: NodeJS.ProcessEnv): string {
  const fromEnv = environment[TOKEN_ENV];
  if (args.listenTokenFile === undefined && (fromEnv ?? "") === "") return randomBytes(32).toString("hex");
  const outcome = resolveListenToken({ file: args.listenTokenFile, env: fromEnv });
  if (!outcome.ok) fail(outcome.message.replace("--listen needs", "desktop needs"));
  for (const warning of outcome.warnings) process.stderr.write(`knightcode: ${warning}\n`);
  return outcome.token;
}

/**
 * The folder of the built page: the override when set, else the page the
 * `@knightcode/desktop` package exports as `./page`.
 */
function pageRoot(environment: NodeJS.ProcessEnv): string {
  const override = environment[PAGE_ENV];
  let root: string | undefined;
  if (override !== undefined && override !== "") root = resolve(override);
  else root = resolveDesktopPackagePage();
  if (root === undefined) fail(`the desktop page is not installed: build the @knightcode/desktop package (npm run build), or set ${PAGE_ENV}`);
  if (!existsSync(join(root, "index.html"))) fail(`the desktop page folder ${root} has no index.html: run npm run build`);
  return root;
}

function resolveDesktopPackagePage(): string | undefined {
  const require = createRequire(import.meta.url);
  try {
    const path = require.resolve("@knightcode/desktop/page");
    return statSync(path).isDirectory() ? path : dirname(path);
  } catch {
    // Not exported as a file; look for the package's build where Node would find the package.
  }
  for (const modules of require.resolve.paths("@knightcode/desktop") ?? []) {
    const root = join(modules, "@knightcode", "desktop", "dist", "page");
    if (existsSync(join(root, "index.html"))) return root;
  }
  return undefined;
}

function openerNote(why: string): void {
  process.stderr.write(`knightcode desktop: could not open a browser (${why}); open the printed URL yourself\n`);
}

/**
 * Opens `url` (the launcher's `file://` address, which carries no secret) in
 * the default browser without waiting for it; a failure is a note, the URL
 * is already printed.
 */
function openBrowser(url: string, environment: NodeJS.ProcessEnv, onFailure: () => void): void {
  const note = (why: string) => {
    openerNote(why);
    onFailure();
  };
  const [command, ...commandArgs] =
    process.platform === "darwin" ? ["open", url] : process.platform === "win32" ? ["cmd", "/c", "start", '""', url] : ["xdg-open", url];
  // The browser gets the URL, not the rest of the server's secrets.
  const childEnv = { ...environment };
  delete childEnv[TOKEN_ENV];
  try {
    const child = spawn(command!, commandArgs, {
      detached: true,
      stdio: "ignore",
      env: childEnv,
      windowsHide: true,
      // cmd parses its own command line: the empty title must reach it as "" unescaped.
      windowsVerbatimArguments: process.platform === "win32",
    });
    child.on("error", (error) => note(error.message));
    child.unref();
  } catch (error) {
    note(error instanceof Error ? error.message : String(error));
  }
}
