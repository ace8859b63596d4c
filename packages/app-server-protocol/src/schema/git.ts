import { Type } from "typebox";
import { Closed } from "./common.js";
import { request } from "./define.js";
import { reasons } from "../reasons.js";
import { BranchName, GitStatus } from "@knightcode/schema/git";

const ThreadId = Type.String({ minLength: 1, maxLength: 128, description: "The thread's id." });
const Sha = Type.String({ pattern: "^[0-9a-f]{40}([0-9a-f]{24})?$", description: "A full commit id." });

const GitBranch = Type.Object(
  {
    name: BranchName,
    head: Sha,
    upstream: Type.Optional(Type.String({ description: "Its upstream as <remote>/<branch>." })),
    current: Type.Boolean({ description: "HEAD is on it." }),
  },
  Closed,
);

const GitCommit = Type.Object(
  {
    sha: Sha,
    subject: Type.String({ description: "The first line of the commit message." }),
    author: Type.String({ description: "The author's name." }),
    time: Type.String({ description: "The author's time, ISO 8601 in UTC." }),
  },
  Closed,
);

const onThread = { threadId: ThreadId };
const CHECKOUT = "Acts on the thread's own checkout (the repository around its folder).";

export const git = {
  clientRequests: {
    "git/status": request({
      params: Type.Object(onThread, Closed),
      result: GitStatus,
      errors: ["threadNotFound", "notGitRepo"],
      doc: `${CHECKOUT} The branch, its upstream and how far apart they are, counts of staged, unstaged, untracked and conflicted files, and an operation in progress. Never writes the index.`,
    }),
    "git/commit": request({
      params: Type.Object(
        {
          ...onThread,
          message: Type.Optional(Type.String({ maxLength: 65_536, description: "Empty or absent: the thread's model writes it from the change." })),
          includeUnstaged: Type.Optional(
            Type.Boolean({ description: "Stage every change (untracked files included, ignored ones not) first; true by default." }),
          ),
        },
        Closed,
      ),
      result: Type.Object(
        {
          sha: Sha,
          message: Type.String({ description: "The message as recorded (a commit-msg hook may have changed it)." }),
          generated: Type.Boolean({ description: "The thread's model wrote the message." }),
        },
        Closed,
      ),
      errors: ["threadNotFound", "notGitRepo", "turnInProgress", "gitConflict", "authRequired"],
      reasons: reasons("concurrentChange", "localChanges"),
      doc: `${CHECKOUT} Commits, the user's hooks running. Nothing to commit is invalidParams; unresolved conflicts are gitConflict localChanges; HEAD or the change moving while the model wrote the message is gitConflict concurrentChange; a hook or git refusing is internal with data.output. The message request is in no transcript and no usage.`,
    }),
    "git/commit/message": request({
      params: Type.Object(
        {
          ...onThread,
          includeUnstaged: Type.Optional(
            Type.Boolean({
              description: "Write it for every change (untracked files included, ignored ones not), as git/commit would stage them; true by default.",
            }),
          ),
        },
        Closed,
      ),
      result: Type.Object({ message: Type.String({ description: "The message the thread's model wrote, for the user to read and edit." }) }, Closed),
      errors: ["threadNotFound", "notGitRepo", "gitConflict", "authRequired"],
      reasons: reasons("localChanges", "noModel"),
      doc: `${CHECKOUT} Beyond the spec: the message git/commit without one would have the thread's model write, answered instead of committed, so a client can show it for editing first. Reads only: nothing is staged or committed, the index is not written. Nothing to commit is invalidParams; unresolved conflicts are gitConflict localChanges; no usable model is invalidParams (data.reason) or authRequired, as for git/commit; the model failing is internal. The request is in no transcript and no usage.`,
    }),
    "git/push": request({
      params: Type.Object(
        {
          ...onThread,
          remote: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "A configured remote; by default the upstream's, else origin." })),
        },
        Closed,
      ),
      result: Type.Object(
        {
          remote: Type.String({ description: "The remote pushed to." }),
          branch: BranchName,
          pushedTo: Type.String({ description: "The branch it went to, as <remote>/<branch>." }),
          upstreamSet: Type.Boolean({ description: "The branch had no upstream; this push made it one." }),
        },
        Closed,
      ),
      errors: ["threadNotFound", "notGitRepo", "gitConflict", "authRequired"],
      reasons: reasons("pushRejected", "notConfirmed"),
      doc: `${CHECKOUT} Pushes the current branch with one explicit refspec that never forces, to its upstream's branch (or one of its own name), setting the upstream the first time. A remote that is a folder on this machine (a path or file:// URL) is pushed to only after the user confirms a ui/dialog, and none of that repository's hooks run; no yes is invalidParams notConfirmed. A detached HEAD or an unknown remote is invalidParams; a refusal is gitConflict pushRejected with data.output.`,
    }),
    "git/pr/create": request({
      params: Type.Object(
        {
          ...onThread,
          title: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: "Absent: title and body come from the commits (gh's --fill)." })),
          body: Type.Optional(Type.String({ maxLength: 65_536, description: "The pull request's description, in Markdown." })),
          draft: Type.Optional(Type.Boolean({ description: "Opens it as a draft." })),
          base: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "The branch to merge into; the repository's default by default." })),
        },
        Closed,
      ),
      result: Type.Object({ url: Type.String({ description: "The pull request's page." }) }, Closed),
      errors: ["threadNotFound", "notGitRepo", "toolMissing", "authRequired"],
      doc: `${CHECKOUT} Opens a pull request for the current (pushed) branch with gh pr create. No gh on PATH is toolMissing; gh not signed in is authRequired; gh refusing is internal with data.output.`,
    }),
    "git/branches": request({
      params: Type.Object(onThread, Closed),
      result: Type.Object(
        {
          current: Type.Union([BranchName, Type.Null()], { description: "The branch HEAD is on; null when detached." }),
          branches: Type.Array(GitBranch, { description: "The local branches, the most recently committed to first." }),
        },
        Closed,
      ),
      errors: ["threadNotFound", "notGitRepo"],
      doc: `${CHECKOUT} The local branches.`,
    }),
    "git/branch/create": request({
      params: Type.Object({ ...onThread, name: BranchName }, Closed),
      result: Type.Object({ branch: BranchName, head: Type.Union([Sha, Type.Null()], { description: "null: the branch has no commit yet." }) }, Closed),
      errors: ["threadNotFound", "notGitRepo", "turnInProgress", "gitConflict"],
      reasons: reasons("branchExists"),
      doc: `${CHECKOUT} "Create branch here": a new branch at HEAD, checked out, the files and the index untouched. An invalid name is invalidParams; an existing one gitConflict branchExists. Refused while a turn runs in the checkout.`,
    }),
    "git/branch/switch": request({
      params: Type.Object({ ...onThread, name: BranchName }, Closed),
      result: Type.Object({ branch: BranchName, head: Sha }, Closed),
      errors: ["threadNotFound", "notGitRepo", "turnInProgress", "gitConflict"],
      reasons: reasons("localChanges", "operationInProgress"),
      doc: `${CHECKOUT} Checks out a local branch, local changes carried along. Refused with gitConflict localChanges (data.paths) when it would overwrite a local change, or a file the index does not track (ignored ones too), and operationInProgress during a merge, rebase and the like. An unknown branch is invalidParams. Refused while a turn runs in the checkout.`,
    }),
    "git/log": request({
      params: Type.Object(
        {
          ...onThread,
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: "50 by default." })),
        },
        Closed,
      ),
      result: Type.Object(
        {
          commits: Type.Array(GitCommit, { description: "Newest first." }),
          base: Type.Optional(
            Type.Object(
              { sha: Sha, from: Type.String({ description: "What the base was found from: the upstream's or the default branch's name." }) },
              { ...Closed, description: "Where the branch left its base; absent when none was found." },
            ),
          ),
          truncated: Type.Boolean({ description: "More commits since the base than limit." }),
        },
        Closed,
      ),
      errors: ["threadNotFound", "notGitRepo"],
      doc: `${CHECKOUT} The commits since the base (for the committed scope): the merge base with the upstream, else with the default branch (origin's HEAD, main, master) when HEAD is not on it; without a base, the last commits.`,
    }),
  },
} as const;
