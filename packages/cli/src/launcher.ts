import { randomBytes } from "node:crypto";
import { closeSync, constants, fchmodSync, lstatSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sweepStaleSpools } from "@knightcode/app-server/cli";

/** Long enough for a browser to start cold on a loaded machine; the launcher goes as soon as it is used. */
const LAUNCHER_LIFETIME_MS = 120_000;
const CHALLENGE_PREFIX = "knightcode.challenge.";
/** A launcher's folder is `<prefix><pid>-XXXXXX`, so the next desktop can tell one a killed process left. */
export const LAUNCHER_FOLDER_PREFIX = "knightcode-desktop-";

export interface LauncherPage {
  /** `127.0.0.1:<port>`: where the page and its listener are. */
  address: string;
  token: string;
  /** The folder the server was started in: the page's first project. */
  project?: string;
  /** The listener's answer to `nonce`, from `launcherProof`. */
  proofFor(nonce: string): string;
}

/**
 * A page of ours that hands the token to the desktop page. A browser is
 * opened on `file://<launcher>`, so no command line (the opener's, the
 * browser's) carries the token; the launcher is a 0600 file in a 0700 folder
 * of ours, which no other user can read. It first asks the listener for its
 * proof and moves to the page only when the listener holds the token, so a
 * port another user took meanwhile never gets it.
 *
 * The folder is made before the server starts, so that the server can count
 * the launcher among its secret files (the read-only tools refuse it); the
 * page is written once the listener's address is known. It goes when the
 * launcher is used, when the process exits, or after two minutes; one a
 * killed process left goes when the next launcher is made beside it.
 */
export class Launcher {
  readonly nonce = randomBytes(32).toString("base64url");
  /** The launcher's path; nothing is there until `write`. */
  readonly path: string;
  private readonly folder: string;
  private timer: NodeJS.Timeout | undefined;
  private removed = false;
  private readonly onExit = () => this.remove();

  constructor(environment: NodeJS.ProcessEnv) {
    const parent = launcherParent(environment);
    this.folder = mkdtempSync(join(parent, `${LAUNCHER_FOLDER_PREFIX}${process.pid}-`));
    // Best effort, in the background: what is not swept now, the next launcher sweeps.
    sweepStaleSpools({ root: parent, prefixes: [LAUNCHER_FOLDER_PREFIX] }).catch(() => undefined);
    this.path = join(this.folder, "open.html");
    process.once("exit", this.onExit);
  }

  /** Writes the page for the listener at `page.address`; the launcher's `file://` URL. */
  write(page: LauncherPage): string {
    writeExclusive(this.path, launcherHtml(page, this.nonce, page.proofFor(this.nonce)));
    this.timer = setTimeout(() => this.remove(), LAUNCHER_LIFETIME_MS).unref();
    return pathToFileURL(this.path).href;
  }

  /** The listener heard a launcher's challenge: when it was this one's, it has done its work. */
  used(nonce: string): void {
    if (nonce === this.nonce) this.remove();
  }

  remove(): void {
    if (this.removed) return;
    this.removed = true;
    clearTimeout(this.timer);
    process.off("exit", this.onExit);
    rmSync(this.folder, { recursive: true, force: true });
  }
}

/**
 * `$XDG_RUNTIME_DIR` when it is a folder of ours alone (the session's private
 * runtime folder), else the temp folder, where `mkdtemp` makes a 0700 folder.
 */
function launcherParent(environment: NodeJS.ProcessEnv): string {
  const runtime = environment.XDG_RUNTIME_DIR;
  if (runtime === undefined || runtime === "" || process.platform === "win32") return tmpdir();
  const stats = lstatSync(runtime, { throwIfNoEntry: false });
  const ours = stats?.isDirectory() && stats.uid === process.getuid?.() && (stats.mode & 0o077) === 0;
  return ours ? runtime : tmpdir();
}

/** Creates `path` afresh (never through anything already there) with mode 0600. */
function writeExclusive(path: string, text: string): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** A value inside an inline script: JSON, with `<` escaped so no `</script>` can end the script early. */
function scriptValue(value: string): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

function launcherHtml(options: LauncherPage, nonce: string, expected: string): string {
  const { address } = options;
  const project = options.project === undefined ? "" : `&project=${encodeURIComponent(options.project)}`;
  const page = `http://${address}/#token=${encodeURIComponent(options.token)}${project}`;
  const notOurs = `The program listening at ${address} is not your KnightCode server, so this page did not hand it your token. Start knightcode desktop again.`;
  const gone = `Nothing answers at ${address}. If knightcode desktop has stopped, start it again.`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; connect-src ws://${address}">
<meta name="referrer" content="no-referrer">
<title>KnightCode</title>
</head>
<body>
<p id="status">Opening KnightCode…</p>
<script>
"use strict";
(() => {
  const say = (text) => { document.getElementById("status").textContent = text; };
  const socket = new WebSocket(${scriptValue(`ws://${address}/`)}, ["knightcode", ${scriptValue(CHALLENGE_PREFIX + nonce)}]);
  socket.onmessage = (event) => {
    socket.onclose = null;
    socket.close();
    let proof;
    try { proof = JSON.parse(event.data).proof; } catch { proof = undefined; }
    if (proof === ${scriptValue(expected)}) location.replace(${scriptValue(page)});
    else say(${scriptValue(notOurs)});
  };
  socket.onclose = () => say(${scriptValue(gone)});
})();
</script>
</body>
</html>
`;
}
