import { statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { realPathOf } from "@knightcode/system/fs/real-target";
import type { ToolContext } from "./context.js";
import { ToolError } from "./errors.js";
import { isProcessSecretFile, mayBeProcessSecret } from "./process-files.js";

/** Files directly in the agent dir that hold keys, tokens or commands with secrets in their environment. */
export const CREDENTIAL_FILE_NAMES = ["auth.json", "models.json", "tools.json", "mcp.json"] as const;

type Refused = "credential" | "serverSecret" | "process";

/**
 * The files read, grep, find and ls refuse, as they are on disk at the start
 * of a tool call: the agent dir's credential files, the files the server
 * keeps its own secrets in (the WebSocket token file), and every process's
 * environment, command line and memory under /proc. A file is recognised by
 * its identity (device and inode) and by its real path, so a symbolic link,
 * a hard link, `..` or any other spelling of the path leads to the same
 * answer. Files that do not exist protect nothing: there is nothing to read.
 */
export class CredentialFiles {
  private readonly identities = new Map<string, Refused>();
  private readonly realPaths = new Map<string, Refused>();
  private readonly seen = new Map<string, Refused | null>();

  static of(ctx: ToolContext): CredentialFiles {
    const files = new CredentialFiles();
    if (ctx.agentDir !== undefined) {
      for (const name of CREDENTIAL_FILE_NAMES) files.add(join(ctx.agentDir, name), "credential");
    }
    for (const path of ctx.secretFiles ?? []) files.add(path, "serverSecret");
    return files;
  }

  private add(path: string, kind: Refused): void {
    const stats = statOrUndefined(path);
    if (stats === undefined) return;
    const id = identity(stats);
    if (id !== undefined) this.identities.set(id, kind);
    this.realPaths.set(realPathOf(path), kind);
  }

  /**
   * Whether a file met in a walk (which follows no links), given its stats,
   * is one to pass over. Cheap: only names under /proc cost a look more.
   */
  skipsWalked(path: string, stats: Stats): boolean {
    return this.matchesStats(stats) || (mayBeProcessSecret(path) && isProcessSecretFile(path));
  }

  /** Whether `stats` (of a file reached by any path, links followed) is one of the credential or secret files. */
  matchesStats(stats: Stats): boolean {
    const id = identity(stats);
    return id !== undefined && this.identities.has(id);
  }

  /** Whether the file at `path`, links followed, is one the tools refuse; remembered per path. */
  includes(path: string): boolean {
    return this.kindOf(path) !== undefined;
  }

  private kindOf(path: string): Refused | undefined {
    let known = this.seen.get(path);
    if (known === undefined) {
      known = null;
      if (this.realPaths.size > 0) {
        const stats = statOrUndefined(path);
        if (stats !== undefined) known = this.identities.get(identity(stats) ?? "") ?? this.realPaths.get(realPathOf(path)) ?? null;
      }
      if (known === null && isProcessSecretFile(path)) known = "process";
      this.seen.set(path, known);
    }
    return known ?? undefined;
  }

  /** Throws the `protectedPath` error the model sees when it names a refused file. */
  refuse(path: string, shown: string): void {
    const kind = this.kindOf(path);
    if (kind === "credential") throw protectedPathError(shown);
    if (kind === "serverSecret")
      throw new ToolError(
        "protectedPath",
        `${shown} holds the app server's WebSocket token. The read-only tools refuse it, so that the token is not sent to the model provider.`,
      );
    if (kind === "process") {
      throw new ToolError(
        "protectedPath",
        `${shown} is a process's environment, command line or memory (/proc/<pid>/environ, cmdline or mem). ` +
          "The read-only tools refuse these files, so that the keys and tokens a process holds are not sent to the model provider.",
      );
    }
  }
}

export function protectedPathError(shown: string): ToolError {
  return new ToolError(
    "protectedPath",
    `${shown} is a KnightCode credential file (${CREDENTIAL_FILE_NAMES.join(", ")} in the agent folder). ` +
      "The read-only tools refuse it, so that keys stored there are not sent to the model provider.",
  );
}

/** A file's device and inode, links followed: the same for every name it has, hard links included; undefined when missing. */
export function fileIdentity(path: string): string | undefined {
  const stats = statOrUndefined(path);
  return stats === undefined ? undefined : identity(stats);
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
