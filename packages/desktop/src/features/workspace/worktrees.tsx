import type { JSX } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import type { ManagedWorktree } from "@knightcode/app-server-protocol";
import { openThread } from "../../state/app-state.js";
import { openThreadSignal } from "../../state/open-threads.js";
import { toast } from "../../state/toasts.js";
import { Button } from "../../ui/button.js";
import { confirmAction } from "../../ui/modal.js";
import { problemFrom, ProblemNotice, type Problem } from "./problem.js";
import { scriptLog, workspace } from "./store.js";

/** Handoff between the thread's worktree and the user's checkout, the project's managed worktrees, and the setup script's log. */
export function Worktrees({ threadId }: { threadId: string }): JSX.Element | null {
  const state = openThreadSignal(threadId).value;
  const [list, setList] = useState<ManagedWorktree[]>([]);
  const [branch, setBranch] = useState("");
  const [environments, setEnvironments] = useState<{ names: string[]; trusted: boolean }>({ names: [], trusted: false });
  const [environment, setEnvironment] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const cwd = state?.thread.cwd;

  const load = useCallback(async () => {
    if (!cwd) return;
    try {
      setList((await workspace.listWorktrees(cwd)).worktrees);
    } catch (error) {
      setProblem(problemFrom(error, "Listing the worktrees"));
    }
  }, [cwd]);
  useEffect(() => {
    void load();
  }, [load, state?.generation]);
  // The environments a new worktree could be set up with; only a thread in the checkout can be handed off into one.
  const local = state?.thread.workspace.mode === "local";
  useEffect(() => {
    if (!cwd || !local) return;
    workspace
      .environments(cwd)
      .then((answer) => setEnvironments({ names: answer.environments.map((e) => e.name), trusted: answer.trusted === true }))
      .catch((error: unknown) => setProblem(problemFrom(error, "Reading the project's environments")));
  }, [cwd, local]);

  if (!state) return null;
  const inWorktree = state.thread.workspace.mode === "worktree";

  const run = async (doing: string, action: () => Promise<string>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      toast(await action(), "success");
    } catch (error) {
      setProblem(problemFrom(error, doing));
    } finally {
      setBusy(false);
      await load();
    }
  };

  const handoff = () =>
    run("Handing off", async () => {
      const to = inWorktree ? "local" : "worktree";
      const answer = await workspace.handoff(threadId, {
        to,
        ...(inWorktree && branch.trim() ? { branch: branch.trim() } : {}),
        ...(!inWorktree && environment ? { environment } : {}),
      });
      setBranch("");
      return to === "local" ? `Handed off to your checkout${answer.branch ? ` on ${answer.branch}` : ""}` : "Handed off to a worktree";
    });

  const remove = async (worktree: ManagedWorktree) => {
    const yes = await confirmAction({
      title: "Delete this worktree?",
      body: `${worktree.path} is deleted after a snapshot; its threads can restore it later.`,
      confirm: "Delete",
      danger: true,
    });
    if (yes)
      await run("Deleting the worktree", async () => `Deleted; snapshot kept at ${(await workspace.deleteWorktree(worktree.path)).snapshot ?? "no ref"}`);
  };

  // An archived thread must come back first: restore answers invalidParams (archived) for it.
  const restore = (id: string) =>
    run("Restoring the worktree", async () => {
      await workspace.restoreWorktree(id);
      openThread(id);
      return "Worktree restored";
    });

  return (
    <section class="ws-section" aria-labelledby="ws-worktrees-title">
      <h3 id="ws-worktrees-title">Worktrees</h3>
      {problem && <ProblemNotice problem={problem} onDismiss={() => setProblem(undefined)} />}
      <p class="ws-note">
        {inWorktree ? `This thread runs in its own worktree: ${state.thread.workspace.path ?? state.thread.cwd}` : "This thread runs in your checkout."}
      </p>
      <form
        class="ws-inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void handoff();
        }}
      >
        {inWorktree && (
          <>
            <label for="ws-handoff-branch">Branch (optional)</label>
            <input id="ws-handoff-branch" type="text" value={branch} onInput={(e) => setBranch(e.currentTarget.value)} />
          </>
        )}
        {!inWorktree && environments.names.length > 0 && (
          <>
            <label for="ws-handoff-env">Environment</label>
            <select id="ws-handoff-env" value={environment} onChange={(e) => setEnvironment(e.currentTarget.value)}>
              <option value="">None</option>
              {environments.names.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </>
        )}
        <Button type="submit" icon="handoff" disabled={busy}>
          {inWorktree ? "Hand off to local" : "Hand off to worktree"}
        </Button>
      </form>
      {!inWorktree && environment && !environments.trusted && <p class="ws-note ws-warn">This project is not trusted: its setup script will not run.</p>}
      <ScriptLogView threadId={threadId} />
      {list.length > 0 && (
        <ul class="ws-rows" aria-label="Managed worktrees">
          {list.map((w) => (
            <li key={w.path} class="ws-row">
              <span class="ws-row-main">
                <code>{w.path}</code>
                <span class="ws-faint">
                  {" "}
                  {w.branch ?? (w.head ? w.head.slice(0, 7) : "")} · {w.threadIds.length} {w.threadIds.length === 1 ? "thread" : "threads"}
                </span>
              </span>
              {w.deleted ? (
                <>
                  <span class="badge">deleted</span>
                  {w.threadIds.length > 0 && (
                    <Button variant="ghost" disabled={busy} aria-label={`Restore ${w.path}`} onClick={() => void restore(w.threadIds[w.threadIds.length - 1]!)}>
                      Restore
                    </Button>
                  )}
                </>
              ) : (
                <Button variant="ghost" disabled={busy} aria-label={`Delete ${w.path}`} onClick={() => void remove(w)}>
                  Delete
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ScriptLogView({ threadId }: { threadId: string }): JSX.Element | null {
  const log = scriptLog(threadId).value;
  if (!log) return null;
  const ending = log.done ? (log.exitCode === 0 ? "finished" : log.exitCode === null ? "was stopped" : `failed (exit ${log.exitCode})`) : "running…";
  return (
    <div class="ws-script">
      <p role="status" aria-live="polite">
        Environment {log.phase} script {ending}
      </p>
      {log.output && (
        <pre class="ws-output" tabIndex={0} aria-label={`${log.phase} script output`}>
          {log.output}
        </pre>
      )}
    </div>
  );
}
