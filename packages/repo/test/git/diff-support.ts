import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { discoverRepo } from "../../src/git/repo.js";
import type { GitContext } from "../../src/git/ops/context.js";

/** A repository made with the system git, its config its own: no global or system config is read. */
export interface TestRepo {
  root: string;
  env: NodeJS.ProcessEnv;
  git(...args: string[]): string;
  write(path: string, content: string | Buffer, mode?: number): void;
  remove(path: string): void;
  read(path: string): Buffer;
  ctx(): Promise<GitContext>;
  /** Every file of the working tree (outside .git) with its bytes and executable bit. */
  tree(): Map<string, string>;
}

export function testRepo(folder: string): TestRepo {
  mkdirSync(folder, { recursive: true });
  const root = realpathSync(folder);
  const home = join(root, "..", `${root.split("/").pop()}-home`);
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.com",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.com",
  };
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, env, encoding: "utf8", maxBuffer: 1 << 28 });
  git("init", "-q", "-b", "main");
  const tree = () => {
    const files = new Map<string, string>();
    const walk = (dir: string, prefix: string) => {
      for (const name of readdirSync(dir)) {
        if (prefix === "" && name === ".git") continue;
        const path = join(dir, name);
        const rel = prefix === "" ? name : `${prefix}/${name}`;
        const stat = statSync(path);
        if (stat.isDirectory()) walk(path, rel);
        else files.set(rel, `${stat.mode & 0o111 ? "x" : "-"}:${readFileSync(path).toString("base64")}`);
      }
    };
    walk(root, "");
    return files;
  };
  return {
    root,
    env,
    git,
    write(path, content, mode) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
      if (mode !== undefined) chmodSync(join(root, path), mode);
    },
    remove(path) {
      rmSync(join(root, path), { force: true });
    },
    read(path) {
      return readFileSync(join(root, path));
    },
    async ctx() {
      return { repo: await discoverRepo(root, env), env };
    },
    tree,
  };
}
