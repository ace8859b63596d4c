import { broadFolder } from "@knightcode/system/fs/broad-folders";
import { isWithin, realTarget } from "@knightcode/system/fs/real-target";
import { secretPlaceReason } from "@knightcode/agent/approvals/secret-places";
import type { ShellFolder } from "@knightcode/agent/approvals/shell-paths";
import { controlReason, type ControlLookups } from "./control-paths.js";

export interface GrantFolderOptions {
  /** The thread's folder (its worktree for a worktree thread). */
  cwd: string;
  controls: ControlLookups;
  /** The server's own secret files: the `--listen-token-file`. */
  secretFiles?: readonly string[];
}

/**
 * What a shell prefix grant is confined to: the thread's folder, less what
 * no grant reaches even there. Never the agent folder (outside the thread's
 * own worktree), a credential or secret file by any name; for a program that
 * may write what it names, never a control place either. In a folder too
 * broad to be a project (the root, a home folder, a system folder) no path
 * counts as the project's, as no write does.
 */
export function grantFolder({ cwd, controls, secretFiles = [] }: GrantFolderOptions): ShellFolder {
  const broad = broadFolder(cwd);
  const places = { agentDir: controls.agentDir, ownWorktree: controls.ownWorktree, secretFiles };
  return {
    cwd,
    protectedReason(real, access) {
      if (broad !== undefined) return `the thread's folder ${cwd} is ${broad}, so no path in it counts as the project's`;
      const secret = secretPlaceReason(places, real);
      if (secret !== undefined || access === "read") return secret;
      const root = realTarget(cwd);
      const control = controlReason(root, real, isWithin(root, real), controls);
      return control === undefined ? undefined : `the program may write what it names, and a write there ${control}`;
    },
  };
}
