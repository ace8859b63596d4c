/**
 * Every `data.reason` an error may carry, with what it means: the methods
 * name the ones they answer, and the generated reference lists them.
 */
const ALL = {
  noModel: "invalidParams: no usable model is chosen or configured; see docs/models.md.",
  modelNotFound: "invalidParams: the model named (or the default) is not in the catalogue or models.json.",
  invalidThinkingLevel: "invalidParams: the model does not offer that thinking level.",
  turnEnded: "invalidParams: the turn ended before the input was accepted; start a new turn instead.",
  queueFull: "invalidParams: the thread already holds as many waiting inputs (or bytes of them) as it takes; data has the limits.",
  untrusted: "invalidParams: the project is not trusted, so its files are not written (project/trust/set first).",
  missingCwd: "invalidParams: a project scope needs cwd, an absolute path.",
  archived: "invalidParams: the thread is archived; unarchive it first.",
  notConfirmed: "invalidParams: the user did not confirm (said no, dismissed the question, or nobody was there to ask); nothing was done.",
  controlPaths: "invalidParams: the change would write files that decide what later runs (data.paths) and the user did not confirm; nothing moved.",
  diffChanged: "gitConflict: the hunk or file changed since it was read (or the last turn is another one); read the diff again.",
  patchFailed: "gitConflict: git would not apply the patch; data.output has its words.",
  concurrentChange: "gitConflict: HEAD or the staged change moved while the commit was prepared; data.paths names the files.",
  pushRejected: "gitConflict: the remote refused the push; data.output has its report.",
  localChanges: "gitConflict: uncommitted changes stand in the way; data.paths names them.",
  operationInProgress: "gitConflict: a merge, rebase, cherry-pick, revert or bisect is under way.",
  branchExists: "gitConflict: a branch of that name exists already.",
  recoveryRequired: "gitConflict: the changes could not land; data.patch is the saved patch and data.recoveryInstructions says what to do.",
  worktreeDeleted: "gitConflict: the thread's worktree was deleted; restore it first (thread/worktree/restore).",
  worktreeMissing: "gitConflict: the worktree was deleted without a snapshot; fork the chat into a new worktree instead.",
  worktreeInUse: "gitConflict: a thread is loaded in the worktree.",
  submodules: "gitConflict: the worktree holds a nested repository, which is never deleted.",
} as const;

export type ErrorReason = keyof typeof ALL;
/** Each reason with its meaning, which starts with the code that carries it. */
export type ErrorReasonMeanings = typeof ALL;

/** The named reasons with their meanings, for a method's definition. */
export function reasons(...names: ErrorReason[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, ALL[name]]));
}
