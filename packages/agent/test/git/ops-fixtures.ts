import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { discoverRepo } from "../../src/git/repo.js";
import type { GitContext } from "../../src/git/ops/context.js";
import { tempRoot } from "../settings/fixtures.js";

/** A repository in a temp folder, driven by the system git under a HOME of its own (no machine config). */
export interface TestRepo {
  root: string;
  env: NodeJS.ProcessEnv;
  git(...args: string[]): string;
  write(path: string, content: string): void;
  commit(message: string, files?: Record<string, string>): string;
  context(): Promise<GitContext>;
}

export function repoFactory(name: string): (options?: { bare?: boolean }) => TestRepo {
  const fresh = tempRoot(name);
  const home = fresh();
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
  return (options = {}) => {
    const root = realpathSync(fresh());
    const git = (...args: string[]) => execFileSync("git", args, { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    git("init", "-q", "-b", "main", ...(options.bare ? ["--bare"] : []));
    if (!options.bare) {
      git("config", "user.email", "t@example.com");
      git("config", "user.name", "Tess Ter");
    }
    const write = (path: string, content: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    };
    return {
      root,
      env,
      git,
      write,
      commit(message, files = {}) {
        for (const [path, content] of Object.entries(files)) write(path, content);
        git("add", "-A");
        git("commit", "-q", "--allow-empty", "-m", message);
        return git("rev-parse", "HEAD").trim();
      },
      context: async () => ({ repo: await discoverRepo(root, env), env }),
    };
  };
}
