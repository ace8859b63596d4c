import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A file's content, or a symlink to create (target relative to the link's folder or absolute). */
export type Node = string | { link: string };

export interface Sandbox {
  root: string;
  home: string;
  agentDir: string;
  cwd: string;
  /** `<cwd>/.knightcode` */
  projectDir: string;
  write(files: Record<string, Node>, base?: string): void;
  close(): void;
}

/** A temp home with an agent dir and a project, and a writer for trees of real files. */
export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "kc-resources-"));
  const home = join(root, "home");
  const agentDir = join(home, ".knightcode", "agent");
  const cwd = join(root, "project");
  for (const dir of [agentDir, cwd]) mkdirSync(dir, { recursive: true });
  return {
    root,
    home,
    agentDir,
    cwd,
    projectDir: join(cwd, ".knightcode"),
    write(files, base = root) {
      for (const [rel, node] of Object.entries(files)) {
        const path = join(base, rel);
        mkdirSync(dirname(path), { recursive: true });
        if (typeof node === "string") writeFileSync(path, node);
        else symlinkSync(node.link, path);
      }
    },
    close() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export function skillFile(name: string, description?: string, body = "Do the thing."): string {
  return ["---", `name: ${name}`, ...(description ? [`description: ${description}`] : []), "---", body, ""].join("\n");
}
