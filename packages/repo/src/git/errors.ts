/** A git command that failed: its arguments, exit code (null: it did not exit) and what it said. */
export class GitCommandError extends Error {
  override readonly name = "GitCommandError";

  constructor(
    readonly args: readonly string[],
    readonly code: number | null,
    readonly stderr: string,
    /** git itself is missing. */
    readonly gitMissing = false,
  ) {
    super(`git ${args[0] ?? ""} failed${code === null ? "" : ` (exit ${code})`}: ${stderr || "no message"}`);
  }
}

/** The folder is not inside a git working tree. */
export class NotGitRepoError extends Error {
  override readonly name = "NotGitRepoError";
}

/** The reasons the spec gives `gitConflict`. */
export type GitConflictReason =
  | "diffChanged"
  | "patchFailed"
  | "concurrentChange"
  | "pushRejected"
  | "localChanges"
  | "operationInProgress"
  | "branchExists"
  | "recoveryRequired"
  | "worktreeDeleted"
  | "worktreeMissing"
  | "worktreeInUse"
  | "submodules";

export interface GitConflictDetails {
  paths?: string[];
  output?: string;
  recoveryInstructions?: string;
  /** recoveryRequired: the saved patch's path. */
  patch?: string;
}

/** A git operation the state of the repository refused; the server answers `gitConflict` with `reason` and the details. */
export class GitConflictError extends Error {
  override readonly name = "GitConflictError";

  constructor(
    readonly reason: GitConflictReason,
    message: string,
    readonly details: GitConflictDetails = {},
  ) {
    super(message);
  }
}

/** A program a git feature needs (gh) is not installed. */
export class ToolMissingError extends Error {
  override readonly name = "ToolMissingError";

  constructor(
    readonly tool: string,
    message: string,
  ) {
    super(message);
  }
}

/** A remote or a program refused for lack of credentials (gh not signed in, a push asking for a password). */
export class GitAuthError extends Error {
  override readonly name = "GitAuthError";
}
