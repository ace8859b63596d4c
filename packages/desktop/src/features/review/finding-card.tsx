import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { openThreadSignal } from "../../state/open-threads.js";
import { toast } from "../../state/toasts.js";
import { Button } from "../../ui/button.js";
import type { ReviewFindingItem } from "./model.js";
import { review } from "./store.js";
import "./review.css";

function linesOf(finding: ReviewFindingItem): string {
  return finding.startLine === finding.endLine ? `line ${finding.startLine}` : `lines ${finding.startLine}-${finding.endLine}`;
}

/** The suggestion as a small diff: the lines the review read, then those that take their place (none: they go). */
function Suggestion({ finding }: { finding: ReviewFindingItem }): JSX.Element {
  const text = finding.suggestion ?? "";
  const added = text === "" ? [] : text.replace(/\n$/, "").split("\n");
  const removed = finding.lines ?? [];
  return (
    <figure class="review-suggestion">
      <figcaption>{added.length === 0 ? `Suggested change: delete ${linesOf(finding)}` : `Suggested change for ${linesOf(finding)}`}</figcaption>
      {removed.length + added.length > 0 && (
        <pre aria-label="Suggested change">
          {removed.map((line, i) => (
            <span key={`-${i}`} class="review-del">
              {`-${line}\n`}
            </span>
          ))}
          {added.map((line, i) => (
            <span key={`+${i}`} class="review-add">
              {`+${line}\n`}
            </span>
          ))}
        </pre>
      )}
    </figure>
  );
}

/**
 * A review turn's finding: its severity, title and body, where it is, its
 * suggestion as the lines it would write, and the two things to do with
 * it: apply the suggestion, or send it back as a review comment. The
 * server refuses to write the checkout while a turn runs in it, so Apply
 * waits, disabled and saying why, until the thread's turn has ended.
 */
export function FindingCard({ threadId, item }: { threadId: string; item: ReviewFindingItem }): JSX.Element {
  const state = review.applied(item.findingId).value;
  const [busy, setBusy] = useState(false);
  const turnRunning = openThreadSignal(threadId).value?.thread.status.type === "active";
  const apply = async () => {
    setBusy(true);
    await review.apply(threadId, item);
    setBusy(false);
  };
  const comment = () => {
    review.comment(threadId, item);
    toast("The finding goes with your next message as a review comment", "success");
  };
  const titleId = `finding-${item.findingId}`;
  const waitId = `finding-wait-${item.findingId}`;
  const waiting = turnRunning && state?.kind !== "applied";
  return (
    <article class={`review-finding review-${item.severity}`} aria-labelledby={titleId}>
      <header class="review-finding-head">
        <span class="badge review-severity">{item.severity}</span>
        <strong id={titleId}>{item.title}</strong>
        <code class="review-place">{`${item.path}:${item.startLine === item.endLine ? item.startLine : `${item.startLine}-${item.endLine}`}`}</code>
      </header>
      <p class="review-body">{item.body}</p>
      {item.suggestion !== undefined && <Suggestion finding={item} />}
      <div class="review-actions">
        {item.suggestion !== undefined && (
          <Button
            icon="check"
            disabled={busy || waiting || state?.kind === "applied"}
            aria-describedby={waiting ? waitId : undefined}
            onClick={() => void apply()}
          >
            {state?.kind === "applied" ? "Applied" : busy ? "Applying…" : "Apply suggestion"}
          </Button>
        )}
        <Button icon="send" onClick={comment}>
          Comment
        </Button>
      </div>
      {item.suggestion !== undefined && waiting && (
        <p id={waitId} class="review-wait">
          The suggestion can be applied once the turn ends.
        </p>
      )}
      {state?.kind === "applied" && (
        <p class="review-note" role="status">
          Applied to {state.paths.join(", ")}.
        </p>
      )}
      {state?.kind === "refused" && (
        <div class="review-refused" role="alert">
          <strong>{state.title}</strong>
          <p>{state.message}</p>
        </div>
      )}
    </article>
  );
}
