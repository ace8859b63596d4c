export { commitOf, currentBranch, type GitContext } from "./context.js";
export { CommandRefusedError, GitRequestError } from "./errors.js";
export { conflictedPaths, operationInProgress, readStatus, type GitOperation, type GitStatus } from "./status.js";
export { commitPlan, planCommit, planDiff, MAX_COMMIT_DIFF, type CommitPlan, type CommitResult } from "./commit.js";
export { pushBranch, type PushOptions, type PushResult } from "./push.js";
export { LOCAL_RECEIVE_PACK, localPushTarget, localRemotePath, type LocalPushTarget } from "./local-remote.js";
export { createPullRequest, type PullRequestOptions } from "./pull-request.js";
export { createBranch, listBranches, requireBranchName, switchBranch, type BranchInfo } from "./branches.js";
export { DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT, readLog, resolveLogBase, type LogBase, type LogCommit } from "./log.js";
