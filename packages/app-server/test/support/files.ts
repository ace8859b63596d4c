import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

/**
 * A folder outside every server's home for a test file's extensions and
 * markers: each file gets a folder of its own, so an extension's folder
 * holds nothing else.
 */
export class ScratchFiles {
  private seq = 0;
  readonly root: string;

  constructor(prefix: string) {
    this.root = mkdtempSync(join(tmpdir(), prefix));
  }

  file(name: string, content?: string): string {
    const dir = join(this.root, `f${++this.seq}`);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, name);
    if (content !== undefined) writeFileSync(path, content);
    return path;
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/**
 * Every file and folder under `root` with its size and modification time,
 * leaving out `skip` (a private compile cache, say): unlike config-files.ts'
 * content hashes, a file rewritten with the same bytes shows as changed.
 */
export function statTree(root: string, skip: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path === skip || path.startsWith(`${skip}/`)) continue;
      const stat = statSync(path);
      out.set(relative(root, path), stat.isDirectory() ? "dir" : `${stat.size}:${stat.mtimeMs}`);
      if (stat.isDirectory()) walk(path);
    }
  };
  walk(root);
  return out;
}
