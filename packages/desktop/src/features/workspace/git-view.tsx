import type { JSX } from "preact";
import { useCallback, useState } from "preact/hooks";
import type { GitBranchesResult, GitStatusResult } from "@knightcode/app-server-protocol";
import { toast } from "../../state/toasts.js";
import { Button } from "../../ui/button.js";
import { AppServerError } from "@knightcode/app-server-client/browser";
import { problemFrom, ProblemNotice, type Problem } from "./problem.js";
import { Worktrees } from "./worktrees.js";
import { CommitBox } from "./commit-box.js";
import { isNoRemote, PushBox } from "./push-box.js";
import { workspace } from "./store.js";
import { useWorkspaceReload } from "./use-reload.js";

/** Where the thread's checkout stands and what can be done with it: commit, push, pull request, branches, worktrees. */
export function GitView({ threadId }: { threadId: string }): JSX.Element {
  const [status, setStatus] = useState<GitStatusResult | undefined>(undefined);
  const [branches, setBranches] = useState<GitBranchesResult | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [notRepo, setNotRepo] = useState(false);
  const [noRemote, setNoRemote] = useState(false);

  const load = useCallback(async () => {
    try {
      const { status: s, branches: b } = await workspace.readGit(threadId);
      setStatus(s);
      setBranches(b);
      setNotRepo(false);
    } catch (error) {
      setStatus(undefined);
      setBranches(undefined);
      if (error instanceof AppServerError && error.code === "notGitRepo") setNotRepo(true);
      else setProblem(problemFrom(error, "Reading git's status"));
    }
  }, [threadId]);
  useWorkspaceReload(threadId, load);

  /** One action at a time; its refusal shows inline with git's words, and the status is read again after. */
  const act = async <T,>(doing: string, run: () => Promise<T>, done: (result: T) => string, refused?: (error: unknown) => boolean): Promise<boolean> => {
    setBusy(doing);
    setProblem(undefined);
    try {
      toast(done(await run()), "success");
      return true;
    } catch (error) {
      if (!refused?.(error)) setProblem(problemFrom(error, doing));
      return false;
    } finally {
      setBusy(undefined);
      await load();
    }
  };

  if (notRepo) return <p class="ws-note">This thread's folder is not in a git repository: there is nothing to commit, push or hand off.</p>;
  return (
    <div class="ws-git">
      <p class="ws-status" role="status" aria-live="polite">
        {busy ? `${busy}…` : ""}
      </p>
      {problem && <ProblemNotice problem={problem} onDismiss={() => setProblem(undefined)} />}
      {status && <StatusSummary status={status} />}
      <CommitBox
        threadId={threadId}
        status={status}
        disabled={!!busy}
        onCommit={(message, includeUnstaged) =>
          act(
            "Committing",
            () => workspace.commit(threadId, message, includeUnstaged),
            (r) => `Committed ${r.sha.slice(0, 7)}: ${r.message.split("\n")[0]}`,
          )
        }
      />
      <section class="ws-section" aria-labelledby="ws-remote-title">
        <h3 id="ws-remote-title">Remote</h3>
        <PushBox
          disabled={!!busy}
          noRemote={noRemote}
          onPush={(remote) =>
            void act(
              "Pushing",
              () => workspace.push(threadId, remote),
              (r) => {
                setNoRemote(false);
                return `Pushed ${r.branch} to ${r.pushedTo}${r.upstreamSet ? " (now its upstream)" : ""}`;
              },
              (error) => {
                const missing = isNoRemote(error);
                setNoRemote(missing);
                return missing;
              },
            )
          }
        />
        <PullRequestForm
          disabled={!!busy}
          onCreate={(params) =>
            act(
              "Creating the pull request",
              () => workspace.createPullRequest(threadId, params),
              (r) => `Pull request opened: ${r.url}`,
            )
          }
        />
      </section>
      <Branches
        branches={branches}
        disabled={!!busy}
        onSwitch={(name) =>
          act(
            `Switching to ${name}`,
            () => workspace.switchBranch(threadId, name),
            (r) => `On ${r.branch} now`,
          )
        }
        onCreate={(name) =>
          act(
            `Creating ${name}`,
            () => workspace.createBranch(threadId, name),
            (r) => `Created and switched to ${r.branch}`,
          )
        }
      />
      <Worktrees threadId={threadId} />
    </div>
  );
}

const OPERATIONS: Record<string, string> = { merge: "a merge", rebase: "a rebase", cherryPick: "a cherry-pick", revert: "a revert", bisect: "a bisect" };

function StatusSummary({ status }: { status: GitStatusResult }): JSX.Element {
  return (
    <section class="ws-section" aria-labelledby="ws-status-title">
      <h3 id="ws-status-title">Status</h3>
      <dl class="ws-facts">
        <dt>Branch</dt>
        <dd>{status.branch ?? "detached HEAD"}</dd>
        <dt>Upstream</dt>
        <dd>{status.upstream ? `${status.upstream} · ${status.ahead} ahead, ${status.behind} behind` : "none"}</dd>
        <dt>Changes</dt>
        <dd>
          {status.staged} staged, {status.unstaged} unstaged, {status.untracked} untracked
          {status.conflicted > 0 ? `, ${status.conflicted} conflicted` : ""}
        </dd>
      </dl>
      {status.operation && (
        <p class="ws-note ws-warn">git stopped in the middle of {OPERATIONS[status.operation] ?? status.operation}: finish or abort it in a terminal.</p>
      )}
    </section>
  );
}

function PullRequestForm({
  disabled,
  onCreate,
}: {
  disabled: boolean;
  onCreate: (p: { title?: string; body?: string; draft?: boolean }) => Promise<boolean>;
}): JSX.Element {
  const [title, setTitle] = useState("");
  const [body, setBody] = useState("");
  const [draft, setDraft] = useState(false);
  return (
    <details class="ws-pr">
      <summary>Create a pull request</summary>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void onCreate({ ...(title.trim() ? { title: title.trim() } : {}), ...(body.trim() ? { body } : {}), ...(draft ? { draft } : {}) });
        }}
      >
        <div class="field">
          <label for="ws-pr-title">Title (empty: from the commits)</label>
          <input id="ws-pr-title" type="text" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="ws-pr-body">Description</label>
          <textarea id="ws-pr-body" rows={3} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
        </div>
        <label class="ws-check">
          <input type="checkbox" checked={draft} onChange={(e) => setDraft(e.currentTarget.checked)} /> Draft
        </label>
        <p class="ws-note">Push the branch first: the pull request is opened for the pushed branch.</p>
        <Button type="submit" disabled={disabled}>
          Create pull request
        </Button>
      </form>
    </details>
  );
}

function Branches({
  branches,
  disabled,
  onSwitch,
  onCreate,
}: {
  branches: GitBranchesResult | undefined;
  disabled: boolean;
  onSwitch: (name: string) => Promise<boolean>;
  onCreate: (name: string) => Promise<boolean>;
}): JSX.Element {
  const [name, setName] = useState("");
  return (
    <section class="ws-section" aria-labelledby="ws-branches-title">
      <h3 id="ws-branches-title">Branches</h3>
      <ul class="ws-rows">
        {branches?.branches.map((b) => (
          <li key={b.name} class="ws-row">
            <span class="ws-row-main">
              <code>{b.name}</code>
              {b.upstream && <span class="ws-faint"> → {b.upstream}</span>}
            </span>
            {b.current ? (
              <span class="badge">current</span>
            ) : (
              <Button variant="ghost" disabled={disabled} aria-label={`Switch to ${b.name}`} onClick={() => void onSwitch(b.name)}>
                Switch
              </Button>
            )}
          </li>
        ))}
      </ul>
      <form
        class="ws-inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) void onCreate(name.trim()).then((ok) => ok && setName(""));
        }}
      >
        <label for="ws-new-branch">New branch here</label>
        <input id="ws-new-branch" type="text" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <Button type="submit" disabled={disabled || !name.trim()}>
          Create branch
        </Button>
      </form>
    </section>
  );
}
