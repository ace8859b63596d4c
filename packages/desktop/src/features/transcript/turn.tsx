import { Component, Fragment, type JSX } from "preact";
import { useState } from "preact/hooks";
import type { HistoryItem, TokenUsage, Turn } from "@knightcode/app-server-protocol";
import { showEarlierTurnChanges, showLastTurnChanges } from "../../state/app-state.js";
import { reportError } from "../../state/toasts.js";
import { Button } from "../../ui/button.js";
import { MessageMenu } from "../rewind/message-menu.js";
import { ItemBox } from "./items.js";
import { formatBytes } from "./payload.js";
import { readPayload } from "./store.js";
import type { TranscriptStore, TurnView } from "./store.js";

interface TurnProps {
  threadId: string;
  turn: TurnView;
  store: TranscriptStore;
  /** The thread's newest turn: its diff is the changes panel's lastTurn scope, with Undo; an earlier turn's opens read-only. */
  newest: boolean;
}

/** One turn; redrawn only when its object changed (see TranscriptStore). */
export class TurnBox extends Component<TurnProps> {
  override shouldComponentUpdate(next: TurnProps): boolean {
    return next.turn !== this.props.turn || next.threadId !== this.props.threadId || next.newest !== this.props.newest;
  }
  override render(): JSX.Element {
    const { turn, threadId, store, newest } = this.props;
    const { top, nested } = arrange(turn.items);
    // The turn's first message started it; any later one was handed to it while it ran.
    const opening = top.find((item) => item.type === "userMessage");
    return (
      <article class="turn" data-turn-id={turn.id} data-turn-status={turn.status}>
        {turn.payloadRef && turn.items.length === 0 && <TurnReference turn={turn} store={store} />}
        {top.map((item) => (
          <Fragment key={item.id}>
            <ItemBox threadId={threadId} item={item} nested={nested.get(item.id)} steer={item.type === "userMessage" && item !== opening} />
            {item === opening && turn.status !== "inProgress" && <MessageMenu threadId={threadId} turnId={turn.id} text={"text" in item ? item.text : ""} />}
          </Fragment>
        ))}
        <TurnStatus turn={turn} />
        <TurnFooter turn={turn} newest={newest} label={opening && "text" in opening ? opening.text : undefined} />
      </article>
    );
  }
}

/**
 * Top-level items ordered by their latest `index` (items that have none keep
 * their arrival order); nested calls grouped under the call they belong to.
 * The nested lists are cached per item array, so their identity is stable
 * across redraws and unchanged tool calls skip theirs.
 */
const arranged = new WeakMap<HistoryItem[], { top: HistoryItem[]; nested: Map<string, HistoryItem[]> }>();
function arrange(items: HistoryItem[]): { top: HistoryItem[]; nested: Map<string, HistoryItem[]> } {
  const known = arranged.get(items);
  if (known) return known;
  const nested = new Map<string, HistoryItem[]>();
  const top: { item: HistoryItem; order: number; arrival: number }[] = [];
  items.forEach((item, arrival) => {
    const parent = "parentItemId" in item ? item.parentItemId : undefined;
    if (parent) {
      const list = nested.get(parent) ?? [];
      list.push(item);
      nested.set(parent, list);
    } else top.push({ item, order: item.index ?? Number.MAX_SAFE_INTEGER, arrival });
  });
  top.sort((a, b) => a.order - b.order || a.arrival - b.arrival);
  const result = { top: top.map((t) => t.item), nested };
  arranged.set(items, result);
  return result;
}

function TurnStatus({ turn }: { turn: TurnView }): JSX.Element | null {
  if (turn.status === "inProgress") {
    return (
      <div class="turn-status working" role="status" aria-live="polite">
        <span class="spinner" aria-hidden="true" />
        {turn.retrying ? `Retrying (${turn.retrying.attempt} of ${turn.retrying.maxAttempts}) after: ${turn.retrying.error.message}` : "Working…"}
      </div>
    );
  }
  if (turn.status === "failed") {
    return (
      <div class="turn-status failed" role="alert">
        Failed: {turn.error?.message ?? "the turn did not finish"}
      </div>
    );
  }
  if (turn.status === "interrupted") return <div class="turn-status interrupted">Interrupted</div>;
  return null;
}

function TurnFooter({ turn, newest, label }: { turn: TurnView; newest: boolean; label: string | undefined }): JSX.Element | null {
  const files = turn.files ?? [];
  if (!turn.usage && files.length === 0) return null;
  const counts = (
    <>
      {files.length} {files.length === 1 ? "file" : "files"} changed <span class="adds">+{files.reduce((n, f) => n + f.additions, 0)}</span>{" "}
      <span class="dels">−{files.reduce((n, f) => n + f.deletions, 0)}</span>
    </>
  );
  return (
    <div class="turn-footer">
      {turn.usage && <span class="turn-usage">{usageText(turn.usage)}</span>}
      {files.length > 0 &&
        (turn.status !== "inProgress" ? (
          <button
            type="button"
            class="turn-files"
            onClick={() => (newest ? showLastTurnChanges() : showEarlierTurnChanges(turn.id, turnLabel(label)))}
            title="Show this turn's changes"
          >
            {counts}
          </button>
        ) : (
          <span class="turn-files">{counts}</span>
        ))}
    </div>
  );
}

/** How the changes panel names an earlier turn: the start of the message that began it. */
function turnLabel(text: string | undefined): string {
  const line = (text ?? "").trim().replace(/\s+/g, " ");
  if (line === "") return "an earlier turn";
  return `“${line.length > 60 ? `${line.slice(0, 59)}…` : line}”`;
}

/**
 * Thousands grouped with commas, as en-US writes them. By hand: a page's
 * first Intl formatter costs 70 ms and more (the browser loads its locale
 * data then), which at module load held up the connection and the sidebar.
 */
const number = { format: (n: number): string => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",") };

/** Tokens in and out (with cache reads when there were any), and dollars. */
export function usageText(usage: TokenUsage): string {
  const parts = [`${number.format(usage.input)} in`, `${number.format(usage.output)} out`];
  if (usage.cacheRead > 0) parts.push(`${number.format(usage.cacheRead)} cached`);
  if (usage.cacheWrite > 0) parts.push(`${number.format(usage.cacheWrite)} cache write`);
  parts.push(`$${usage.cost.toFixed(usage.cost < 1 ? 4 : 2)}`);
  return parts.join(" · ");
}

export function contextText(usage: TokenUsage): string | undefined {
  if (usage.contextTokens === undefined || usage.contextWindow <= 0) return undefined;
  const percent = Math.round((usage.contextTokens / usage.contextWindow) * 100);
  return `context ${number.format(usage.contextTokens)} / ${number.format(usage.contextWindow)} (${percent}%)`;
}

/** A turn too large to send inline: read when asked. */
function TurnReference({ turn, store }: { turn: TurnView; store: TranscriptStore }): JSX.Element {
  const [busy, setBusy] = useState(false);
  const ref = turn.payloadRef!;
  const load = () => {
    setBusy(true);
    readPayload(ref).then(
      (text) => store.fillTurn(turn.id, JSON.parse(text) as Turn),
      (error: unknown) => {
        setBusy(false);
        reportError(error, "Loading the turn");
      },
    );
  };
  return (
    <div class="item-ref">
      <span>A large turn.</span>{" "}
      <Button onClick={load} disabled={busy} aria-busy={busy}>
        Load full turn ({formatBytes(ref.bytes)})
      </Button>
    </div>
  );
}
