import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { openThreadSignal } from "../../state/open-threads.js";
import { Button } from "../../ui/button.js";
import { transcriptStore } from "./store.js";
import { contextText, TurnBox, usageText } from "./turn.js";
import "./transcript.css";

export { setViewRenderer } from "./view-renderer.js";
export { watchTranscripts } from "./store.js";

/** How close to an edge (CSS px) counts as being at it. */
const EDGE = 48;

/** The conversation of one thread. */
export function Transcript({ threadId }: { threadId: string }): JSX.Element {
  const store = transcriptStore(threadId);
  const state = store.state.value;
  const usage = openThreadSignal(threadId).value?.usage;
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  /** Where this component last scrolled to, so the scroll event that follows is not taken for the reader's. */
  const ownScroll = useRef<number | undefined>(undefined);
  // Pinned while the reader is at the bottom; scrolling up unpins, so new text never yanks them back.
  const pinned = useRef(true);
  const [away, setAway] = useState(false);
  /** The scroll height and position before older turns were put above, to keep the view where it was. */
  const anchor = useRef<{ height: number; top: number; firstTurn: string | undefined } | undefined>(undefined);

  useLayoutEffect(() => {
    pinned.current = true;
    setAway(false);
  }, [threadId]);

  // Older turns went in above: keep the turns that were in view where they were.
  useLayoutEffect(() => {
    const el = scroller.current;
    const kept = anchor.current;
    if (!el || !kept || kept.firstTurn === state.turns[0]?.id) return;
    anchor.current = undefined;
    el.scrollTop = el.scrollHeight - kept.height + kept.top;
  }, [state.turns]);

  // Follow growth from a ResizeObserver rather than after each render: it runs once the browser has laid
  // the frame out anyway, so streaming never forces an extra synchronous layout.
  useEffect(() => {
    const el = scroller.current;
    const inner = content.current;
    if (!el || !inner) return;
    const observer = new ResizeObserver(() => {
      if (!pinned.current || anchor.current) return;
      // Layout is fresh here, so these reads cost nothing.
      const bottom = el.scrollHeight - el.clientHeight;
      if (Math.abs(el.scrollTop - bottom) < 1) return;
      el.scrollTop = bottom;
      ownScroll.current = el.scrollTop;
    });
    observer.observe(inner);
    return () => observer.disconnect();
  }, [threadId]);

  const loadOlder = () => {
    const el = scroller.current;
    if (el) anchor.current = { height: el.scrollHeight, top: el.scrollTop, firstTurn: state.turns[0]?.id };
    // When nothing came (an error, already loading), the anchor must not keep the view from following new text.
    void store.loadOlder().finally(() => {
      if (anchor.current?.firstTurn === store.state.peek().turns[0]?.id) anchor.current = undefined;
    });
  };

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    // The echo of our own following scroll (the position is still the one we set): measuring the
    // heights here could force a layout of text that streamed in since, and nothing changed for the reader.
    const own = ownScroll.current;
    ownScroll.current = undefined;
    if (own !== undefined && Math.abs(el.scrollTop - own) < 1) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < EDGE;
    pinned.current = atBottom;
    if (away === atBottom) setAway(!atBottom);
    if (el.scrollTop < EDGE * 4 && state.nextCursor && !state.loadingOlder) loadOlder();
  };

  const jump = () => {
    const el = scroller.current;
    if (!el) return;
    pinned.current = true;
    setAway(false);
    el.scrollTop = el.scrollHeight;
  };

  const context = usage ? contextText(usage) : undefined;
  // The newest turn's changes are the lastTurn scope, which Undo acts on; an earlier turn's are read by its id, read-only.
  const newest = state.turns.at(-1)?.id;
  return (
    <section class="transcript" aria-label="Conversation" data-thread={threadId}>
      <div class="transcript-scroll" ref={scroller} onScroll={onScroll} tabIndex={0} aria-label="Messages">
        <div ref={content}>
          {state.nextCursor && (
            <div class="older">
              <Button onClick={loadOlder} disabled={state.loadingOlder} aria-busy={state.loadingOlder}>
                {state.loadingOlder ? "Loading older messages…" : "Load older messages"}
              </Button>
            </div>
          )}
          {state.turns.length === 0 && <p class="transcript-empty">No messages yet.</p>}
          {state.turns.map((turn) => (
            <TurnBox key={turn.id} threadId={threadId} turn={turn} store={store} newest={turn.id === newest} />
          ))}
          {state.notices.map((notice, n) => (
            <p key={n} class="transcript-notice" role="alert">
              {notice}
            </p>
          ))}
        </div>
      </div>
      {away && (
        <Button class="jump-latest" variant="primary" onClick={jump}>
          Jump to latest
        </Button>
      )}
      {usage && (
        <div class="thread-usage">
          <span class="visually-hidden">Thread usage: </span>
          {usageText(usage)}
          {context && ` · ${context}`}
        </div>
      )}
    </section>
  );
}
