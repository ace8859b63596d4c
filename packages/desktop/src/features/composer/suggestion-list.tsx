import type { JSX } from "preact";
import type { Suggestion } from "./suggest.js";

/**
 * The `@` and `/` popup. Focus stays in the textarea, which points at the
 * active option (aria-activedescendant); a pointer picks without taking focus.
 */
export function SuggestionList({
  id,
  label,
  items,
  active,
  onPick,
}: {
  id: string;
  label: string;
  items: Suggestion[];
  active: number;
  onPick: (s: Suggestion) => void;
}): JSX.Element {
  return (
    <ul id={id} class="composer-suggestions" role="listbox" aria-label={label}>
      {items.map((s, i) => (
        <li
          key={s.key}
          id={`${id}-${i}`}
          role="option"
          aria-selected={i === active}
          class="composer-suggestion"
          onMouseDown={(e) => {
            e.preventDefault();
            onPick(s);
          }}
        >
          <span class="composer-suggestion-label">{s.label}</span>
          {s.detail && <span class="composer-suggestion-detail">{s.detail}</span>}
        </li>
      ))}
    </ul>
  );
}
