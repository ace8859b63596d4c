import { realpathSync } from "node:fs";
import { repoAt, type TestRepo as Repo } from "@knightcode/testkit";
import { discoverRepo } from "../../src/git/repo.js";
import type { GitContext } from "../../src/git/ops/context.js";
import { tempRoot } from "../settings/fixtures.js";

/** A repository in a temp folder, driven by the system git under a HOME of its own (no machine config). */
export interface TestRepo extends Repo {
  context(): Promise<GitContext>;
}

export function repoFactory(name: string): (options?: { bare?: boolean }) => TestRepo {
  const fresh = tempRoot(name);
  const home = fresh();
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
  return (options = {}) => {
    const repo = repoAt(realpathSync(fresh()), { env, ...(options.bare ? { bare: true } : {}) });
    return { ...repo, context: async () => ({ repo: await discoverRepo(repo.root, env), env }) };
  };
}

/**
 * `main` and `other` both change f.txt from a common base, so merging one
 * into the other stops on a conflict; HEAD is left on `main`. Answers the
 * commit of `other`.
 */
export function divergeBranches(repo: Repo): string {
  repo.commit("base", { "f.txt": "base\n" });
  repo.git("switch", "-q", "-c", "other");
  const theirs = repo.commit("theirs", { "f.txt": "theirs\n" });
  repo.git("switch", "-q", "main");
  repo.commit("ours", { "f.txt": "ours\n" });
  return theirs;
}
