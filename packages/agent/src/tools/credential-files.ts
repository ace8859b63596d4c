import { realpathSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import type { ToolContext } from "./context.js";
import { ToolError } from "./errors.js";

/** Files directly in the agent dir that hold keys, tokens or commands with secrets in their environment. */
export const CREDENTIAL_FILE_NAMES = ["auth.json", "models.json", "tools.json", "mcp.json"] as const;

/**
 * The agent dir's credential files as they are on disk at the start of a
 * tool call. A file is recognised by its identity (device and inode) and by
 * its real path, so a symbolic link, a hard link, `..` or any other spelling
 * of the path leads to the same answer. Files that do not exist protect
 * nothing: there is nothing to read.
 */
export class CredentialFiles {
  private readonly identities = new Set<string>();
  private readonly realPaths = new Set<string>();
  private readonly seen = new Map<string, boolean>();

  static of(ctx: ToolContext): CredentialFiles {
    const files = new CredentialFiles();
    if (ctx.agentDir === undefined) return files;
    for (const name of CREDENTIAL_FILE_NAMES) {
      const path = join(ctx.agentDir, name);
      const stats = statOrUndefined(path);
      if (stats === undefined) continue;
      const id = identity(stats);
      if (id !== undefined) files.identities.add(id);
      files.realPaths.add(realpathOrSelf(path));
    }
    return files;
  }

  get empty(): boolean {
    return this.realPaths.size === 0;
  }

  /** Whether `stats` (of a file reached by any path, links followed) is one of the credential files. */
  matchesStats(stats: Stats): boolean {
    const id = identity(stats);
    return id !== undefined && this.identities.has(id);
  }

  /** Whether the file at `path`, links followed, is one of the credential files; remembered per path. */
  includes(path: string): boolean {
    if (this.empty) return false;
    let known = this.seen.get(path);
    if (known === undefined) {
      const stats = statOrUndefined(path);
      known = stats !== undefined && (this.matchesStats(stats) || this.realPaths.has(realpathOrSelf(path)));
      this.seen.set(path, known);
    }
    return known;
  }

  /** Throws the `protectedPath` error the model sees when it names a credential file. */
  refuse(path: string, shown: string): void {
    if (this.includes(path)) throw protectedPathError(shown);
  }
}

export function protectedPathError(shown: string): ToolError {
  return new ToolError(
    "protectedPath",
    `${shown} is a KnightCode credential file (${CREDENTIAL_FILE_NAMES.join(", ")} in the agent folder). ` +
      "The read-only tools refuse it, so that keys stored there are not sent to the model provider.",
  );
}

/** Inode numbers of 0 (some network and Windows file systems) identify nothing. */
function identity(stats: Stats): string | undefined {
  return stats.ino === 0 ? undefined : `${stats.dev}:${stats.ino}`;
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
