import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/** Shorter tokens are refused: a WebSocket client on this machine could guess them. */
export const MIN_TOKEN_LENGTH = 32;
/** A token file is a line, not a document: anything larger is a mistake. */
const MAX_TOKEN_FILE_BYTES = 4096;
export const TOKEN_ENV = "KNIGHTCODE_APP_SERVER_TOKEN";

export interface TokenSources {
  /** `--listen-token <t>`: shows in `ps` to every local user. */
  flag?: string;
  /** `--listen-token-file <path>`. */
  file?: string;
  /** `KNIGHTCODE_APP_SERVER_TOKEN`. */
  env?: string;
}

export interface TokenCheckOptions {
  /** Decides whether the file's mode and owner are checked (not on Windows). */
  platform?: NodeJS.Platform;
  /** The user the file must belong to; the process's own by default. */
  uid?: number;
}

export type TokenOutcome = { ok: true; token: string; warnings: string[] } | { ok: false; message: string };

const fail = (message: string): TokenOutcome => ({ ok: false, message });

/**
 * The bearer token `--listen` requires, from the one source that gives it:
 * `--listen-token` or `--listen-token-file` (never both), else the
 * environment. Failures are messages for the command line.
 */
export function resolveListenToken(sources: TokenSources, options: TokenCheckOptions = {}): TokenOutcome {
  if (sources.flag !== undefined && sources.file !== undefined) {
    return fail("give --listen-token or --listen-token-file, not both");
  }
  const warnings: string[] = [];
  let token: string;
  let from: string;
  if (sources.file !== undefined) {
    const read = readTokenFile(sources.file, options);
    if (!read.ok) return read;
    token = read.token;
    from = `the token file ${sources.file}`;
  } else if (sources.flag !== undefined) {
    token = sources.flag;
    from = "--listen-token";
    warnings.push(`warning: --listen-token is visible to other local users (in ps); use --listen-token-file <path> or ${TOKEN_ENV} instead`);
  } else if (sources.env !== undefined && sources.env !== "") {
    token = sources.env;
    from = TOKEN_ENV;
  } else {
    return fail(`--listen needs a token: --listen-token-file <path>, ${TOKEN_ENV} or --listen-token <token>`);
  }
  if (/[\s\x00-\x1f\x7f]/.test(token)) return fail(`the token from ${from} contains whitespace or control characters`);
  if (token.length < MIN_TOKEN_LENGTH) {
    return fail(`the token from ${from} has ${token.length} characters; use at least ${MIN_TOKEN_LENGTH}, for example: openssl rand -hex 32`);
  }
  return { ok: true, token, warnings };
}

/**
 * Reads a token file that only its owner can read: a regular file, owned by
 * this user, with no group or other permission bits. The checks look at the
 * opened file itself, so a swap between check and read changes nothing.
 * Windows has no such mode bits (NTFS uses ACLs), so there only the file
 * type is checked.
 */
function readTokenFile(path: string, options: TokenCheckOptions): { ok: true; token: string } | { ok: false; message: string } {
  const platform = options.platform ?? process.platform;
  let fd: number;
  try {
    // Non-blocking, so a FIFO is refused below instead of waiting for a writer.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "it does not exist" : code === "EACCES" ? "permission denied" : (error as Error).message;
    return { ok: false, message: `cannot read the token file ${path}: ${reason}` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { ok: false, message: `the token file ${path} is not a regular file` };
    if (platform !== "win32") {
      const uid = options.uid ?? process.getuid?.();
      if (uid !== undefined && stats.uid !== uid) {
        return { ok: false, message: `the token file ${path} belongs to user ${stats.uid}, not to this user (${uid})` };
      }
      if ((stats.mode & 0o077) !== 0) {
        const mode = (stats.mode & 0o777).toString(8).padStart(4, "0");
        return { ok: false, message: `the token file ${path} is accessible to other users (mode ${mode}); run: chmod 600 ${path}` };
      }
    }
    if (stats.size > MAX_TOKEN_FILE_BYTES) return { ok: false, message: `the token file ${path} is larger than ${MAX_TOKEN_FILE_BYTES} bytes` };
    // Read to the end rather than to the size fstat gave: the file may have grown since.
    const buffer = Buffer.alloc(MAX_TOKEN_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > MAX_TOKEN_FILE_BYTES) return { ok: false, message: `the token file ${path} is larger than ${MAX_TOKEN_FILE_BYTES} bytes` };
    return { ok: true, token: buffer.toString("utf8", 0, length).replace(/\r?\n$/, "") };
  } finally {
    closeSync(fd);
  }
}
