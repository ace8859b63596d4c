import type { JSX } from "preact";
import { AppServerError } from "@knightcode/app-server-client/browser";
import { IconButton } from "../../ui/button.js";

/**
 * A refusal worth more than a toast: git's own words, the files in the way,
 * a saved patch. Shown inline in the panel until dismissed or replaced.
 */
export interface Problem {
  title: string;
  message: string;
  paths?: string[];
  output?: string;
  patch?: string;
  instructions?: string;
}

const REASON_TITLES: Record<string, string> = {
  diffChanged: "The changes moved since they were shown",
  patchFailed: "git could not apply the patch",
  localChanges: "Local changes are in the way",
  operationInProgress: "A merge, rebase or similar is under way",
  branchExists: "That branch already exists",
  recoveryRequired: "The changes could not be moved: nothing was lost",
  worktreeDeleted: "The thread's worktree was deleted",
  worktreeMissing: "The worktree has no snapshot to restore",
  worktreeInUse: "A thread is using this worktree",
  submodules: "The worktree holds a nested repository",
  pushRejected: "The remote refused the push",
  concurrentChange: "The checkout changed while the commit was prepared",
};

const CODE_TITLES: Record<string, string> = {
  turnInProgress: "A turn is running in this checkout",
  toolMissing: "A tool is missing on the server",
  authRequired: "Sign-in required",
  notGitRepo: "Not a git repository",
};

/** A failed request as the panel shows it: the server's message, with whatever data it gave. */
export function problemFrom(error: unknown, doing: string): Problem {
  if (!(error instanceof AppServerError)) return { title: `${doing} failed`, message: error instanceof Error ? error.message : String(error) };
  const data = error.data ?? {};
  const reason = typeof data.reason === "string" ? data.reason : undefined;
  const problem: Problem = {
    title: (reason && REASON_TITLES[reason]) ?? CODE_TITLES[error.code] ?? `${doing} failed`,
    message: error.message,
  };
  if (Array.isArray(data.paths)) problem.paths = data.paths.map(String);
  if (typeof data.output === "string" && data.output.trim()) problem.output = data.output;
  if (typeof data.patch === "string") problem.patch = data.patch;
  if (typeof data.recoveryInstructions === "string") problem.instructions = data.recoveryInstructions;
  if (error.code === "toolMissing" && data.tool === "gh") {
    problem.message = `${error.message} Install the GitHub CLI (gh) where the server runs to open pull requests.`;
  }
  return problem;
}

export { reasonOf } from "./model.js";

export function ProblemNotice({ problem, onDismiss }: { problem: Problem; onDismiss: () => void }): JSX.Element {
  return (
    <div class="ws-problem" role="alert">
      <div class="ws-problem-head">
        <strong>{problem.title}</strong>
        <IconButton icon="close" label="Dismiss" onClick={onDismiss} />
      </div>
      <p>{problem.message}</p>
      {problem.paths && problem.paths.length > 0 && (
        <ul class="ws-problem-paths" aria-label="Files">
          {problem.paths.map((path) => (
            <li key={path}>
              <code>{path}</code>
            </li>
          ))}
        </ul>
      )}
      {problem.patch && (
        <p>
          The changes are saved in <code>{problem.patch}</code>.
        </p>
      )}
      {problem.instructions && <p>{problem.instructions}</p>}
      {problem.output && <pre class="ws-output">{problem.output}</pre>}
    </div>
  );
}
