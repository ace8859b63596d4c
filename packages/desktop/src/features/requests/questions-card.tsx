import type { UserAnswer } from "@knightcode/app-server-protocol";
import type { JSX } from "preact";
import { useRef, useState } from "preact/hooks";
import { Button } from "../../ui/button.js";
import { CardFrame } from "./card.js";
import type { PendingCard } from "./store.js";

type QuestionsCard = Extract<PendingCard, { method: "item/toolCall/requestUserInput" }>;

/** One question's draft: an option's label, or the user's own words; kept while moving between questions. */
interface Draft {
  choice?: string;
  other: string;
  note: string;
}

const OTHER = "\u0000other";
const EMPTY: Draft = { other: "", note: "" };

function toAnswer(draft: Draft): UserAnswer | undefined {
  if (draft.choice === OTHER) return draft.other.trim() ? { other: draft.other.trim() } : undefined;
  if (draft.choice === undefined) return undefined;
  return draft.note.trim() ? { label: draft.choice, note: draft.note.trim() } : { label: draft.choice };
}

/** ask_user's questions, one at a time with Back and Next; nothing is sent until Submit. A question left blank is skipped. */
export function QuestionsRequest({ card }: { card: QuestionsCard }): JSX.Element {
  const { questions, itemId } = card.params;
  const [index, setIndex] = useState(0);
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const stepRef = useRef<HTMLDivElement>(null);
  const question = questions[index]!;
  const draft = drafts[question.id] ?? EMPTY;
  const base = `ask-${itemId.replace(/[^A-Za-z0-9_-]/g, "_")}-${index}`;
  const change = (fields: Partial<Draft>) => setDrafts({ ...drafts, [question.id]: { ...draft, ...fields } });
  const go = (to: number) => {
    setIndex(to);
    // Keep the keyboard on the question that is now shown.
    queueMicrotask(() => stepRef.current?.querySelector<HTMLElement>("input:checked, input")?.focus());
  };
  const submit = () => {
    const answers: Record<string, UserAnswer> = {};
    for (const q of questions) {
      const answer = toAnswer(drafts[q.id] ?? EMPTY);
      if (answer) answers[q.id] = answer;
    }
    card.answer({ answers });
  };
  const last = index === questions.length - 1;
  return (
    <CardFrame card={card} kind="questions" title="The agent has questions">
      <p class="request-step" aria-live="polite">
        Question {index + 1} of {questions.length}
      </p>
      <div ref={stepRef} key={question.id} class="request-question" role="radiogroup" aria-labelledby={`${base}-text`}>
        <p id={`${base}-text`} class="request-question-text">
          {question.text}
        </p>
        {question.options.map((option, i) => (
          <div class="request-option" key={option.label}>
            <input
              type="radio"
              id={`${base}-${i}`}
              name={base}
              checked={draft.choice === option.label}
              data-autofocus={i === 0 ? true : undefined}
              aria-describedby={option.description ? `${base}-${i}-d` : undefined}
              onChange={() => change({ choice: option.label })}
            />
            <label for={`${base}-${i}`}>{option.label}</label>
            {option.description && (
              <span id={`${base}-${i}-d`} class="request-option-description">
                {option.description}
              </span>
            )}
          </div>
        ))}
        <div class="request-option">
          <input type="radio" id={`${base}-other`} name={base} checked={draft.choice === OTHER} onChange={() => change({ choice: OTHER })} />
          <label for={`${base}-other`}>Something else</label>
        </div>
        {draft.choice === OTHER ? (
          <div class="field">
            <label for={`${base}-other-text`}>Your answer</label>
            <input id={`${base}-other-text`} type="text" value={draft.other} onInput={(e) => change({ other: e.currentTarget.value })} />
          </div>
        ) : (
          draft.choice !== undefined && (
            <div class="field">
              <label for={`${base}-note`}>Note (optional)</label>
              <input id={`${base}-note`} type="text" value={draft.note} onInput={(e) => change({ note: e.currentTarget.value })} />
            </div>
          )
        )}
      </div>
      <div class="request-actions">
        <Button onClick={() => go(index - 1)} disabled={index === 0}>
          Back
        </Button>
        {!last && (
          <Button variant="primary" onClick={() => go(index + 1)}>
            Next
          </Button>
        )}
        <Button variant={last ? "primary" : "secondary"} onClick={submit}>
          Submit answers
        </Button>
        <Button variant="ghost" onClick={() => card.answer({})}>
          Dismiss and stop
        </Button>
      </div>
    </CardFrame>
  );
}
