import { stat } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import { readRegularFile } from "@knightcode/system/fs/regular-file";
import { IgnoreFile } from "./ignore-file.js";

/**
 * The ignore files rg and fd honour by default, read as a walk reaches each
 * directory: `.ignore` files, and inside a git repository its `.gitignore`
 * files and `.git/info/exclude`. As in rg and fd:
 * - a `.ignore` rule beats a `.gitignore` rule, which beats the exclude file;
 * - among files of one kind, the deepest directory's decision wins, and a `!`
 *   rule there can take back what a parent ignored;
 * - `.gitignore` files count only inside a repository, from its root down
 *   (a nested repository starts afresh).
 * Not read: the user's global git excludes, rg's `.rgignore` and fd's `.fdignore`.
 */
export class IgnoreRules {
  private readonly dotIgnores = new Map<string, IgnoreFile>();
  private readonly gitignores = new Map<string, IgnoreFile>();
  private readonly excludes = new Map<string, IgnoreFile>();
  private readonly repoRoots = new Set<string>();

  /**
   * Rules for a walk that starts at `root`, which the walk itself never
   * judges: those of its parent folders count too, `.ignore` files up to the
   * file system's root and `.gitignore` files up to the repository's root.
   * The walk reads those of `root` and below.
   */
  static async forWalk(root: string): Promise<IgnoreRules> {
    const rules = new IgnoreRules();
    let repoFound = await exists(join(root, ".git"));
    for (let child = root, dir = dirname(root); dir !== child; child = dir, dir = dirname(dir)) {
      const names = new Set([".ignore"]);
      if (!repoFound) {
        names.add(".gitignore");
        repoFound = await exists(join(dir, ".git"));
        if (repoFound) names.add(".git");
      }
      await rules.readDirectory(dir, names);
    }
    return rules;
  }

  /** Reads the ignore files of `dir`, whose entries are `names`, before any of them is tested. */
  async readDirectory(dir: string, names: ReadonlySet<string>): Promise<void> {
    if (names.has(".git")) {
      this.repoRoots.add(dir);
      await this.addFile(this.excludes, dir, join(dir, ".git", "info", "exclude"));
    }
    if (names.has(".gitignore")) await this.addFile(this.gitignores, dir, join(dir, ".gitignore"));
    if (names.has(".ignore")) await this.addFile(this.dotIgnores, dir, join(dir, ".ignore"));
  }

  /** Whether the walk passes over `path` (and, for a directory, everything in it). */
  isIgnored(path: string, isDirectory: boolean): boolean {
    let byDotIgnore: boolean | undefined;
    let byGitignore: boolean | undefined;
    let repoRoot: string | undefined;
    for (let dir = dirname(path); ; dir = dirname(dir)) {
      byDotIgnore ??= decide(this.dotIgnores.get(dir), dir, path, isDirectory);
      if (repoRoot === undefined) {
        byGitignore ??= decide(this.gitignores.get(dir), dir, path, isDirectory);
        if (this.repoRoots.has(dir)) repoRoot = dir;
      }
      if ((byDotIgnore !== undefined && repoRoot !== undefined) || dirname(dir) === dir) break;
    }
    if (byDotIgnore !== undefined) return byDotIgnore;
    if (repoRoot === undefined) return false;
    return byGitignore ?? decide(this.excludes.get(repoRoot), repoRoot, path, isDirectory) ?? false;
  }

  private async addFile(into: Map<string, IgnoreFile>, dir: string, file: string): Promise<void> {
    let text: string;
    try {
      text = (await readRegularFile(file)).toString("utf8");
    } catch {
      // An unreadable ignore file (a FIFO among them, or a .git that is a worktree's pointer file) ignores nothing.
      return;
    }
    into.set(dir, IgnoreFile.parse(text));
  }
}

/** What the ignore file of `dir`, if any, says of `path`. */
function decide(file: IgnoreFile | undefined, dir: string, path: string, isDirectory: boolean): boolean | undefined {
  if (file === undefined) return undefined;
  const relative = path.slice(dir.endsWith(sep) ? dir.length : dir.length + 1);
  return file.decide(sep === "/" ? relative : relative.split(sep).join("/"), isDirectory);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
