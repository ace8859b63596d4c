import { Fragment, type JSX } from "preact";
import { useState } from "preact/hooks";
import type { DiffHunk } from "@knightcode/app-server-protocol";
import { Button } from "../../ui/button.js";
import { numberLines, sideRange } from "./hunk-lines.js";
import { commentPlace } from "./review-comments.js";
import { addReviewComment, pendingReviewComments } from "./store.js";

/** What the file around a hunk lets the user do with it; an absent action is not offered in this scope. */
export interface HunkActions {
  revert?: () => void;
  stage?: () => void;
  unstage?: () => void;
  /** Comments need a scope whose hunk ids the server can find again. */
  commentable: boolean;
}

interface Selection {
  side: "old" | "new";
  start: number;
  end: number;
}

/** One hunk: its header, numbered lines coloured by kind, its actions, and a comment form on a line range. */
export function HunkView({
  threadId,
  path,
  hunk,
  actions,
  busy,
}: {
  threadId: string;
  path: string;
  hunk: DiffHunk;
  actions: HunkActions;
  busy: boolean;
}): JSX.Element {
  const [selection, setSelection] = useState<Selection | undefined>(undefined);
  const lines = numberLines(hunk);
  // Unsent comments on this hunk, each shown under the last line it covers; sending takes them away.
  const comments = pendingReviewComments(threadId).value.filter((c) => c.path === path && c.hunkId === hunk.id);
  const header = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;

  // A click on a line number starts a range; a shift-click extends it on the same side.
  const pick = (side: "old" | "new", line: number, extend: boolean) => {
    if (!actions.commentable) return;
    if (extend && selection && selection.side === side) {
      setSelection({ side, start: Math.min(selection.start, line), end: Math.max(selection.start, line) });
    } else setSelection({ side, start: line, end: line });
  };
  const inRange = (side: "old" | "new", n: number | undefined) =>
    !!selection && selection.side === side && n !== undefined && n >= selection.start && n <= selection.end;

  return (
    <div class="ws-hunk" data-hunk-id={hunk.id}>
      <div class="ws-hunk-head">
        <code class="ws-hunk-range">{header}</code>
        <div class="ws-actions">
          {actions.commentable && (
            <Button variant="ghost" disabled={busy} onClick={() => setSelection(selection ?? firstChanged(hunk))} aria-label={`Comment on hunk ${header}`}>
              Comment
            </Button>
          )}
          {actions.stage && (
            <Button variant="ghost" disabled={busy} onClick={actions.stage} aria-label={`Stage hunk ${header}`}>
              Stage
            </Button>
          )}
          {actions.unstage && (
            <Button variant="ghost" disabled={busy} onClick={actions.unstage} aria-label={`Unstage hunk ${header}`}>
              Unstage
            </Button>
          )}
          {actions.revert && (
            <Button variant="ghost" disabled={busy} onClick={actions.revert} aria-label={`Revert hunk ${header}`}>
              Revert
            </Button>
          )}
        </div>
      </div>
      <div class="ws-lines">
        {lines.map((line, index) => {
          const selected = inRange("old", line.old) || inRange("new", line.new);
          const here = comments.filter((c) => ((c.side ?? "new") === "old" ? line.old : line.new) === c.endLine);
          return (
            <Fragment key={index}>
              <div class={`ws-line ws-${line.kind}${selected ? " ws-selected" : ""}`}>
                {/* biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: a click on a line number is a pointer shortcut for picking lines; the hunk's buttons are the keyboard's way */}
                <span class="ws-num" onClick={(e) => line.old !== undefined && pick("old", line.old, e.shiftKey)}>
                  {line.old ?? ""}
                </span>
                {/* biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: a click on a line number is a pointer shortcut for picking lines; the hunk's buttons are the keyboard's way */}
                <span class="ws-num" onClick={(e) => line.new !== undefined && pick("new", line.new, e.shiftKey)}>
                  {line.new ?? ""}
                </span>
                <span class="ws-mark" aria-hidden="true">
                  {line.kind === "add" ? "+" : line.kind === "del" ? "-" : " "}
                </span>
                <span class="ws-text">
                  {line.kind === "add" && <span class="visually-hidden">added: </span>}
                  {line.kind === "del" && <span class="visually-hidden">removed: </span>}
                  {line.text}
                </span>
              </div>
              {here.map((c, i) => (
                <p key={i} class="ws-line-comment" role="note" aria-label={`Review comment on ${commentPlace(c)}`}>
                  <span class="ws-faint">{commentPlace(c)}</span> {c.text}
                </p>
              ))}
            </Fragment>
          );
        })}
      </div>
      {selection && (
        <CommentForm
          key={`${selection.side}${selection.start}`}
          hunk={hunk}
          selection={selection}
          onChange={setSelection}
          onCancel={() => setSelection(undefined)}
          onAdd={(text) => {
            addReviewComment(threadId, { path, hunkId: hunk.id, side: selection.side, startLine: selection.start, endLine: selection.end, text });
            setSelection(undefined);
          }}
        />
      )}
    </div>
  );
}

/** Where a comment started from the keyboard begins: the first added line, else the first removed one. */
function firstChanged(hunk: DiffHunk): Selection {
  const numbered = numberLines(hunk);
  const added = numbered.find((l) => l.kind === "add");
  if (added) return { side: "new", start: added.new!, end: added.new! };
  const removed = numbered.find((l) => l.kind === "del");
  if (removed) return { side: "old", start: removed.old!, end: removed.old! };
  return { side: "new", start: hunk.newStart, end: hunk.newStart };
}

function CommentForm({
  hunk,
  selection,
  onChange,
  onCancel,
  onAdd,
}: {
  hunk: DiffHunk;
  selection: Selection;
  onChange: (s: Selection) => void;
  onCancel: () => void;
  onAdd: (text: string) => void;
}): JSX.Element {
  const [text, setText] = useState("");
  const range = sideRange(hunk, selection.side);
  const id = `c-${hunk.id}`;
  const clamp = (n: number) => Math.min(range.max, Math.max(range.min, Number.isFinite(n) ? n : range.min));
  return (
    <form
      class="ws-comment-form"
      aria-label="Review comment"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) onAdd(text.trim());
      }}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          onCancel();
        }
      }}
    >
      <div class="ws-comment-range">
        <label>
          Side{" "}
          <select
            value={selection.side}
            onChange={(e) => {
              const side = (e.currentTarget.value === "old" ? "old" : "new") as "old" | "new";
              const r = sideRange(hunk, side);
              onChange({ side, start: r.min, end: r.min });
            }}
          >
            <option value="new">new</option>
            <option value="old">old</option>
          </select>
        </label>
        <label>
          From line{" "}
          <input
            type="number"
            min={range.min}
            max={range.max}
            value={selection.start}
            onChange={(e) => {
              const start = clamp(Number(e.currentTarget.value));
              onChange({ ...selection, start, end: Math.max(start, selection.end) });
            }}
          />
        </label>
        <label>
          to{" "}
          <input
            type="number"
            min={range.min}
            max={range.max}
            value={selection.end}
            onChange={(e) => {
              const end = clamp(Number(e.currentTarget.value));
              onChange({ ...selection, end, start: Math.min(end, selection.start) });
            }}
          />
        </label>
      </div>
      <label for={id} class="visually-hidden">
        Comment
      </label>
      <textarea id={id} rows={3} value={text} placeholder="What should change here?" autofocus onInput={(e) => setText(e.currentTarget.value)} />
      <div class="ws-actions">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={!text.trim()}>
          Add comment
        </Button>
      </div>
    </form>
  );
}
