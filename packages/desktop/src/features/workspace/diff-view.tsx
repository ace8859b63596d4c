import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { DiffFile, DiffHunk, DiffScope, GitLogResult, ThreadDiffRevertParams } from "@knightcode/app-server-protocol";
import { askedDiffScope, type AskedTurnDiff } from "../../state/app-state.js";
import { toast } from "../../state/toasts.js";
import { Button } from "../../ui/button.js";
import { confirmAction } from "../../ui/modal.js";
import { Counts, FileIndex, FileNotes, summary } from "./diff-file.js";
import { HunkView, type HunkActions } from "./hunk-view.js";
import { describeHunk } from "./hunk-lines.js";
import { problemFrom, ProblemNotice, reasonOf, type Problem } from "./problem.js";
import { ReviewComments } from "./review-chips.js";
import { ScopePicker } from "./scope-picker.js";
import { workspace } from "./store.js";
import { useDiff } from "./use-diff.js";

/** Scopes whose changes live in the working tree, so a revert can take them back. */
const REVERTIBLE = new Set<DiffScope>(["uncommitted", "unstaged", "branch", "lastTurn"]);

/** The thread's changes in a chosen scope, file by file and hunk by hunk, with revert, staging and review comments. */
export function DiffView({ threadId }: { threadId: string }): JSX.Element {
  const [scope, setScope] = useState<DiffScope>(() => askedDiffScope.peek()?.scope ?? "uncommitted");
  // An earlier turn asked for by its "N files changed": shown read-only until another scope (or the last turn) is chosen.
  const [earlier, setEarlier] = useState<AskedTurnDiff["earlier"]>(() => askedDiffScope.peek()?.earlier);
  const asked = askedDiffScope.value;
  useEffect(() => {
    if (asked === undefined) return;
    setScope(asked.scope);
    setEarlier(asked.earlier);
    askedDiffScope.value = undefined;
  }, [asked]);
  const choose = (next: DiffScope) => {
    setScope(next);
    setEarlier(undefined);
  };
  const [commit, setCommit] = useState("");
  const [against, setAgainst] = useState("");
  const [commits, setCommits] = useState<GitLogResult["commits"] | undefined>(undefined);
  const { diff, problem, loading, load, setProblem } = useDiff(threadId, { scope, commit, against, ...(earlier ? { turnId: earlier.turnId } : {}) });
  const [note, setNote] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [actionProblem, setActionProblem] = useState<Problem | undefined>(undefined);

  useEffect(() => {
    if (scope !== "committed") return;
    workspace
      .log(threadId, 100)
      .then((log) => {
        setCommits(log.commits);
        setCommit((current) => current || log.commits[0]?.sha || "");
      })
      .catch((error: unknown) => setProblem(problemFrom(error, "Reading the branch's commits")));
  }, [threadId, scope]);

  /** Runs one change; a stale hunk id re-reads and says so, other refusals show inline. The diff is read again either way. */
  const act = async (doing: string, run: () => Promise<unknown>, done: string) => {
    setBusy(true);
    setActionProblem(undefined);
    setNote(undefined);
    try {
      await run();
      toast(done, "success");
    } catch (error) {
      if (reasonOf(error) === "diffChanged") setNote("The changes moved since they were shown: this is the diff as it is now. Try again.");
      else setActionProblem(problemFrom(error, doing));
    } finally {
      setBusy(false);
      await load();
    }
  };

  const revert = async (what: string, params: Omit<ThreadDiffRevertParams, "threadId" | "scope">, words?: { title: string; body: string }) => {
    const yes = await confirmAction({
      title: words?.title ?? `Revert ${what}?`,
      body: words?.body ?? `The working tree loses ${what}; the index is not changed. An added file is deleted.`,
      confirm: "Revert",
      danger: true,
    });
    if (!yes) return;
    await act("Reverting", () => workspace.revert(threadId, { scope, ...scopeParams(), ...params }), `Reverted ${what}`);
  };
  const scopeParams = () => ({
    ...(scope === "branch" && against ? { against } : {}),
    ...(scope === "lastTurn" && diff?.turnId ? { turnId: diff.turnId } : {}),
  });

  // A last turn whose files moved on (undone, or edited since) is shown as a record: its hunks are no longer in the working tree to act on.
  // So is an earlier turn: Undo and reverts act on the last turn only.
  const readOnly = scope === "lastTurn" && earlier !== undefined;
  const gone = readOnly || (diff?.scope === "lastTurn" && diff.stale === true);
  const hunkActions = (file: DiffFile, hunk: DiffHunk): HunkActions => (gone ? { commentable: false } : liveActions(file, hunk));
  const liveActions = (file: DiffFile, hunk: DiffHunk): HunkActions => ({
    commentable: scope !== "committed",
    revert: REVERTIBLE.has(scope) ? () => void revert(`this hunk of ${file.path}`, { hunkId: hunk.id }, describeHunk(file.path, hunk)) : undefined,
    stage: scope === "unstaged" ? () => void act("Staging", () => workspace.stage(threadId, { hunkId: hunk.id }), `Staged a hunk of ${file.path}`) : undefined,
    unstage:
      scope === "staged" ? () => void act("Unstaging", () => workspace.unstage(threadId, { hunkId: hunk.id }), `Unstaged a hunk of ${file.path}`) : undefined,
  });

  const fileActions = (file: DiffFile): JSX.Element | null => (gone ? null : liveFileActions(file));
  const liveFileActions = (file: DiffFile): JSX.Element => (
    <div class="ws-actions">
      {(scope === "uncommitted" || scope === "unstaged") && (
        <Button
          variant="ghost"
          disabled={busy}
          aria-label={`Stage ${file.path}`}
          onClick={() => void act("Staging", () => workspace.stage(threadId, { path: file.path }), `Staged ${file.path}`)}
        >
          Stage file
        </Button>
      )}
      {scope === "staged" && (
        <Button
          variant="ghost"
          disabled={busy}
          aria-label={`Unstage ${file.path}`}
          onClick={() => void act("Unstaging", () => workspace.unstage(threadId, { path: file.path }), `Unstaged ${file.path}`)}
        >
          Unstage file
        </Button>
      )}
      {REVERTIBLE.has(scope) && (
        <Button
          variant="ghost"
          disabled={busy}
          aria-label={`Revert ${file.path}`}
          onClick={() => void revert(`every change to ${file.path}`, { path: file.path })}
        >
          Revert file
        </Button>
      )}
    </div>
  );

  const files = diff?.files ?? [];
  return (
    <div class="ws-diff">
      <ScopePicker
        scope={scope}
        onScope={choose}
        commits={commits}
        commit={commit}
        onCommit={setCommit}
        against={against}
        onAgainst={setAgainst}
        loading={loading}
        onRefresh={() => void load()}
      />
      <p class="ws-status" role="status" aria-live="polite">
        {loading ? "Reading the changes…" : (note ?? (diff ? summary(files) : ""))}
      </p>
      {scope === "committed" && commits?.length === 0 && <p class="ws-note">No commits on this branch since its base.</p>}
      {problem && <ProblemNotice problem={problem} onDismiss={() => setProblem(undefined)} />}
      {actionProblem && <ProblemNotice problem={actionProblem} onDismiss={() => setActionProblem(undefined)} />}
      <ReviewComments threadId={threadId} />
      {readOnly && <EarlierTurn label={earlier.label} stale={diff?.stale === true} onLast={() => setEarlier(undefined)} />}
      {!readOnly && diff?.scope === "lastTurn" && diff.turnId && (
        <div class="ws-turn">
          <span>
            Turn <code>{diff.turnId}</code>
            {diff.stale ? ": its files changed since it ended (undone, or edited since)." : ""}
          </span>
          {diff.stale && files.length > 0 && <p class="ws-note">Shown as the turn made them; nothing here can be reverted or commented on.</p>}
          {!diff.stale && files.length > 0 && (
            <Button disabled={busy} icon="undo" onClick={() => void revert("the last turn's changes", {})}>
              Undo turn
            </Button>
          )}
          {diff.stale && (
            <Button
              disabled={busy}
              onClick={() =>
                void act(
                  "Reapplying the turn",
                  () => workspace.revert(threadId, { scope: "lastTurn", reapply: true, turnId: diff.turnId }),
                  "Reapplied the last turn",
                )
              }
            >
              Reapply turn
            </Button>
          )}
        </div>
      )}
      {scope === "unstaged" && files.length > 0 && (
        <Button disabled={busy} onClick={() => void act("Staging", () => workspace.stage(threadId, {}), "Staged everything")}>
          Stage all
        </Button>
      )}
      {scope === "staged" && files.length > 0 && (
        <Button disabled={busy} onClick={() => void act("Unstaging", () => workspace.unstage(threadId, {}), "Unstaged everything")}>
          Unstage all
        </Button>
      )}
      {diff?.untrackedSkipped ? <p class="ws-note">{diff.untrackedSkipped} untracked files are not shown (over 500).</p> : null}
      {diff?.filesOmitted ? <p class="ws-note">{diff.filesOmitted} more files are left out of this view.</p> : null}
      {files.length > 1 && <FileIndex files={files} />}
      {files.map((file, i) => (
        <section key={`${file.path}:${file.hunks[0]?.id ?? ""}`} class="ws-file" data-path={file.path} aria-labelledby={`ws-file-${i}`}>
          <div class="ws-file-head">
            <h3 id={`ws-file-${i}`} tabIndex={-1} class="ws-file-path">
              {file.path}
            </h3>
            <span class="badge">{file.status}</span>
            <Counts file={file} />
            {fileActions(file)}
          </div>
          <FileNotes file={file} />
          {file.hunks.map((hunk) => (
            <HunkView key={hunk.id} threadId={threadId} path={file.path} hunk={hunk} actions={hunkActions(file, hunk)} busy={busy} />
          ))}
        </section>
      ))}
    </div>
  );
}

/** Which earlier turn the panel shows, and that it only shows it. */
function EarlierTurn({ label, stale, onLast }: { label: string; stale: boolean; onLast: () => void }): JSX.Element {
  return (
    <div class="ws-turn" data-earlier-turn="">
      <span>
        An earlier turn: {label}
        {stale ? ". Its files changed since." : ""}
      </span>
      <p class="ws-note">Shown as that turn made its changes, read-only: Undo and reverts act on the last turn only.</p>
      <Button variant="ghost" onClick={onLast}>
        Show the last turn
      </Button>
    </div>
  );
}
