import { chmodSync, existsSync, lstatSync, mkdirSync, realpathSync, unlinkSync } from "node:fs";
import { connect } from "node:net";
import { basename, dirname, join } from "node:path";
import { privateFolderProblem } from "@knightcode/app-server-client";

/** sun_path holds 104 bytes on macOS and 108 on Linux, the final NUL included. */
const MAX_SOCKET_PATH_BYTES = 103;

/**
 * Makes `path` ready to bind and returns it with its folder's symlinks
 * resolved, the address both sides sign. The folder must be ours alone (a
 * real directory we own that nobody else may write, in folders nobody else
 * can swap); a missing folder is created 0700. A socket of ours left by a
 * server that is gone is removed; a live one, or anything else at the path,
 * is refused. Throws messages fit for the command line.
 */
export async function prepareSocketPath(path: string): Promise<string> {
  const dir = dirname(path);
  if (!existsSync(dir)) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      throw new Error(`cannot create the socket folder ${dir}: ${(error as Error).message}`);
    }
    // mkdir's mode goes through the umask; the folder must end up ours alone whatever it is.
    chmodSync(dir, 0o700);
  }
  const problem = privateFolderProblem(dir);
  if (problem !== undefined) throw new Error(`the socket folder must be yours alone: ${problem}`);
  const real = join(realpathSync(dir), basename(path));
  if (Buffer.byteLength(real) > MAX_SOCKET_PATH_BYTES)
    throw new Error(`the socket path ${real} is longer than ${MAX_SOCKET_PATH_BYTES} bytes; choose a shorter one`);
  const existing = lstatSync(real, { throwIfNoEntry: false });
  if (existing === undefined) return real;
  if (!existing.isSocket()) throw new Error(`${real} exists and is not a socket; remove it or choose another path`);
  if (await answers(real)) throw new Error(`another server already listens at ${real}`);
  unlinkSync(real);
  return real;
}

/** Whether something accepts connections at the socket `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}

/** Only we may connect, whatever the umask gave the socket; the folder already keeps everyone else out. */
export function restrictSocket(path: string): void {
  chmodSync(path, 0o600);
}
