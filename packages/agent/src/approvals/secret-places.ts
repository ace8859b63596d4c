import { join } from "node:path";
import { isWithin, realPathOf, realTarget } from "@knightcode/system/fs/real-target";
import { CREDENTIAL_FILE_NAMES, fileIdentity } from "../tools/credential-files.js";

/** Where the server keeps what the model must never read. */
export interface SecretPlaces {
  /** The agent folder: its credential files, settings and extensions. */
  readonly agentDir?: string;
  /** A folder inside the agent folder that is the project's all the same: the thread's managed worktree. */
  readonly ownWorktree?: string;
  /** The server's own secret files: the `--listen-token-file`. */
  readonly secretFiles?: readonly string[];
}

/**
 * Why a command under a prefix grant may not name `real` (absolute, links
 * resolved): it lies in the agent folder (outside the thread's own
 * worktree), or it is a credential or secret file by another name, a hard
 * link included. Undefined for any other path. The files are looked at on
 * each call: one created after the thread loaded (a login writing
 * auth.json) counts at once.
 */
export function secretPlaceReason(places: SecretPlaces, real: string): string | undefined {
  if (places.agentDir !== undefined) {
    const agentDir = realTarget(places.agentDir);
    const worktree = places.ownWorktree === undefined ? undefined : realTarget(places.ownWorktree);
    if (isWithin(agentDir, real) && !(worktree !== undefined && isWithin(worktree, real))) {
      return `it is in the agent folder ${agentDir}, which holds the credential files (${CREDENTIAL_FILE_NAMES.join(", ")}), settings and extensions`;
    }
  }
  const secrets = places.secretFiles ?? [];
  if (secrets.some((file) => realPathOf(file) === real)) return "it is a file the server keeps its own secret in (the WebSocket token)";
  const named = fileIdentity(real);
  if (named === undefined) return undefined;
  const credentials = places.agentDir === undefined ? [] : CREDENTIAL_FILE_NAMES.map((name) => join(places.agentDir!, name));
  const same = [...credentials, ...secrets].find((file) => fileIdentity(file) === named);
  return same === undefined ? undefined : `it is ${same} under another name (a hard link)`;
}
