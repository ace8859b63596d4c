import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { Button } from "../../ui/button.js";
import { CardFrame } from "./card.js";
import type { PendingCard } from "./store.js";

type DialogCard = Extract<PendingCard, { method: "ui/dialog" }>;

/**
 * An extension's or a built-in feature's question: select, confirm, input or
 * editor. Cancel answers `{}`, which the asker reads as "no answer".
 */
export function DialogRequest({ card }: { card: DialogCard }): JSX.Element {
  const { params } = card;
  const [text, setText] = useState(params.kind === "editor" ? (params.prefill ?? "") : "");
  const fieldId = `dialog-field-${String(card.requestId).replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const cancel = (
    <Button onClick={() => card.answer({})} data-answer="cancel">
      Cancel
    </Button>
  );
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Escape") {
      event.preventDefault();
      card.answer({});
    }
  };
  let body: JSX.Element;
  switch (params.kind) {
    case "select":
      body = (
        <div class="request-actions request-options" role="list">
          {params.options.map((option, i) => (
            <div role="listitem" key={option}>
              <Button variant={i === 0 ? "primary" : "secondary"} data-autofocus={i === 0 ? true : undefined} onClick={() => card.answer({ value: option })}>
                {option}
              </Button>
            </div>
          ))}
          <div role="listitem">{cancel}</div>
        </div>
      );
      break;
    case "confirm":
      body = (
        <>
          <p class="request-message">{params.message}</p>
          <div class="request-actions">
            <Button variant="primary" data-autofocus onClick={() => card.answer({ confirmed: true })}>
              Yes
            </Button>
            <Button onClick={() => card.answer({ confirmed: false })}>No</Button>
            {cancel}
          </div>
        </>
      );
      break;
    case "input":
    case "editor":
      body = (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            card.answer({ value: text });
          }}
        >
          <div class="field">
            <label for={fieldId}>{params.kind === "input" ? "Your answer" : "Text"}</label>
            {params.kind === "input" ? (
              <input id={fieldId} type="text" data-autofocus value={text} placeholder={params.placeholder} onInput={(e) => setText(e.currentTarget.value)} />
            ) : (
              <textarea
                id={fieldId}
                rows={6}
                data-autofocus
                value={text}
                onInput={(e) => setText(e.currentTarget.value)}
                onKeyDown={(e) => {
                  // Enter makes new lines in an editor; Ctrl/Cmd+Enter submits.
                  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
                    e.preventDefault();
                    card.answer({ value: text });
                  }
                }}
              />
            )}
          </div>
          <div class="request-actions">
            <Button type="submit" variant="primary">
              Submit
            </Button>
            {cancel}
          </div>
        </form>
      );
      break;
  }
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the wrapper only hears Escape and Enter bubbling up from the card's own controls
    <div onKeyDown={onKeyDown}>
      <CardFrame card={card} kind="dialog" title={params.title}>
        {body}
      </CardFrame>
    </div>
  );
}
