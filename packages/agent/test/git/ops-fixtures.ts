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
