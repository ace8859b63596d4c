import { realpathSync } from "node:fs";
import { tempRoot } from "../settings/fixtures.js";

export { GIT_TEST_ENV as GIT_ENV, armTraps, git, gitStatus as status, initRepo, treeFiles as files, writeFiles as write } from "@knightcode/testkit";

/** A scratch-folder maker for one test file. */
export function scratch(name: string): () => string {
  const fresh = tempRoot(name);
  return () => realpathSync(fresh());
}
