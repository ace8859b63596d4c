import { createContext, type ComponentChildren, type JSX } from "preact";
import { useContext, useLayoutEffect, useRef } from "preact/hooks";
import type { PendingCard } from "./store.js";

/**
 * Whether the user is in the middle of typing somewhere: a card that appears
 * then must not take the keyboard away (their next keys would land in it).
 * It announces itself instead, and Tab/Shift+Tab reaches it.
 */
function typing(): boolean {
  const active = document.activeElement as HTMLElement | null;
  if (!active) return false;
  if (active.isContentEditable) return true;
  if (active instanceof HTMLTextAreaElement) return active.value.length > 0;
  if (active instanceof HTMLInputElement) return active.type === "text" && active.value.length > 0;
  return false;
}

/** The sub-agent a card shown under its parent asks for; undefined for the shown thread's own cards. */
export const AskedBy = createContext<string | undefined>(undefined);

/**
 * The frame every request card shares: a labelled group that takes focus when
 * it appears, unless the user is typing. The focus moves in the same commit
 * that draws the card (a layout effect, not one after paint): a key pressed
 * the moment the card shows goes to it, never to the page behind it, where
 * Escape interrupts the turn.
 */
export function CardFrame({ card, title, children, kind }: { card: PendingCard; title: string; kind: string; children: ComponentChildren }): JSX.Element {
  const ref = useRef<HTMLElement>(null);
  const titleId = `request-title-${card.key.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const askedBy = useContext(AskedBy);
  useLayoutEffect(() => {
    const root = ref.current;
    if (!root || typing()) return;
    const first = root.querySelector<HTMLElement>("[data-autofocus]") ?? root.querySelector<HTMLElement>("button, input, textarea, select");
    (first ?? root).focus({ preventScroll: false });
  }, []);
  return (
    <section
      ref={ref}
      class={`request-card request-${kind}${card.live ? "" : " request-stale"}`}
      role="group"
      aria-labelledby={titleId}
      aria-describedby={askedBy === undefined ? undefined : `${titleId}-from`}
      data-request-id={String(card.requestId)}
      data-request-key={card.key}
      tabIndex={-1}
    >
      {askedBy !== undefined && (
        <p id={`${titleId}-from`} class="request-from">
          Sub-agent <strong>{askedBy}</strong> asks
        </p>
      )}
      <h2 id={titleId} class="request-title">
        {title}
      </h2>
      {!card.live && <p class="request-note">Reconnecting… the answer can be given once the server asks again.</p>}
      {/* Inert while stale: an answer then would go to a connection that is gone. */}
      <div class="request-body" inert={!card.live}>
        {children}
      </div>
    </section>
  );
}
