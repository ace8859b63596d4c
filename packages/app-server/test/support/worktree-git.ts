import { git } from "@knightcode/testkit";

export { armTraps, git, gitStatus as status, initRepo, treeFiles as files, writeFiles as write } from "@knightcode/testkit";

/** What the server under test runs git with: no global or system configuration of the machine counts. */
export const SERVER_GIT_ENV = { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

/** The folders `git worktree list` names. */
export function registered(repo: string): string[] {
  return git(repo, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length));
}
