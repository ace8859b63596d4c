import type { DiffAnswer, DiffFile, DiffHunk, DiffScope } from "@knightcode/schema/diffs";

/** The changes a diff shows: Codex's Changes scopes. */
export type { DiffScope };

export type DiffStatus = DiffFile["status"];

/** One hunk as a client sees it: its lines keep their " ", "+", "-" or "\" prefix and lose their newline. */
export type { DiffHunk };

/** One changed file, its paths relative to the repository root. */
export type { DiffFile };

/** A diff as `thread/diff/read` answers it. */
export type { DiffAnswer };

/**
 * What a diff compares, in the terms git takes: a tree (or commit) with the
 * working tree or the index, the index with the working tree, or two trees.
 * `headToWorktree` is HEAD's commit with the working tree, or the empty tree
 * while HEAD names no commit yet.
 */
export type Comparison =
  | { kind: "headToWorktree" }
  | { kind: "worktree"; base: string }
  | { kind: "indexToWorktree" }
  | { kind: "treeToIndex"; base: string }
  | { kind: "trees"; from: string; to: string };

/** A file of a read with what an action needs beyond the answer: its patch text, as git wrote it. */
export interface FilePatch {
  file: DiffFile;
  oldMode: string;
  newMode: string;
  /** The file's whole section of the patch (with `binary`, binary data included). */
  section: Buffer;
  /** The section up to its first hunk: what a one-hunk patch starts with. */
  header: Buffer;
  /** Each hunk's bytes (its `@@` line through its last line), in the order of `file.hunks`. */
  hunkBytes: Buffer[];
  /** Reverted, staged or unstaged only as a whole: added, deleted, renamed, binary, a mode or type change. */
  wholeOnly: boolean;
  /** A submodule's commit: nothing `git apply` can change in the working tree. */
  gitlink: boolean;
  /** `JSON.stringify(file)`, made as the file was read, when the read asked for it (`ReadTuning.json`). */
  fileJson?: string;
}

/** The limits of one answer; the defaults are DIFF_BUDGET. */
export interface DiffBudget {
  /** Files described at all; the rest are counted in `filesOmitted`. */
  maxFiles: number;
  /** Hunk text of one file; past it the file is `tooLarge`. */
  maxFileBytes: number;
  /** Hunk text of the whole answer; once spent, later files are `tooLarge`. */
  maxTotalBytes: number;
  /** Untracked files shown as added; past it none are and all are counted in `untrackedSkipped`. */
  maxUntracked: number;
}

export const DIFF_BUDGET: DiffBudget = {
  maxFiles: 5_000,
  maxFileBytes: 512 * 1024,
  maxTotalBytes: 4 * 1024 * 1024,
  maxUntracked: 500,
};
