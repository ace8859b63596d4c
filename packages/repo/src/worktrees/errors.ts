/**
 * A worktree request that cannot be carried out as asked: `invalidParams`
 * names the field at fault (an unknown base, a path that is not a managed
 * worktree, a worktree that is not deleted); `io` is a folder or file the
 * server could not create, read or write.
 */
export class WorktreeError extends Error {
  override readonly name = "WorktreeError";

  constructor(
    readonly code: "invalidParams" | "io",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
