import type { JSX } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { matches } from "../../ui/keys.js";
import { filesOf } from "./images.js";
import { findTrigger, useSuggestions, type Suggestion } from "./suggest.js";
import { SuggestionList } from "./suggestion-list.js";

const MAX_HEIGHT_PX = 320;

export interface MessageBoxProps {
  threadId: string;
  cwd: string;
  text: string;
  onText: (text: string) => void;
  /** Enter (steer false) or Mod+Enter (steer true). */
  onSend: (steer: boolean) => void;
  /** Escape with no popup open; false when there is nothing to interrupt, so the key goes on. */
  onEscape: () => boolean;
  onFiles: (files: File[]) => void;
  describedBy: string;
  placeholder: string;
}

/**
 * The textarea, growing with its text, and the `@` / `/` popup it drives:
 * focus never leaves the textarea, which points at the active option.
 */
export function MessageBox(props: MessageBoxProps): JSX.Element {
  const { threadId, text } = props;
  const [caret, setCaret] = useState(0);
  const [dismissed, setDismissed] = useState<string | undefined>(undefined);
  const [active, setActive] = useState(0);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const nextCaret = useRef<number | undefined>(undefined);

  const trigger = findTrigger(text, caret);
  const triggerKey = trigger ? `${trigger.kind}:${trigger.start}` : undefined;
  const wanted = trigger && triggerKey !== dismissed ? trigger : undefined;
  const suggestions = useSuggestions(threadId, props.cwd, wanted);
  const popupOpen = wanted !== undefined && suggestions.length > 0;
  const activeIndex = Math.min(active, suggestions.length - 1);
  const listId = `composer-suggestions-${threadId}`;

  // The textarea grows with its text up to a limit, then scrolls; a pick puts the caret after what it inserted.
  useLayoutEffect(() => {
    const el = textarea.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight + 2, MAX_HEIGHT_PX)}px`;
    if (nextCaret.current !== undefined) {
      el.setSelectionRange(nextCaret.current, nextCaret.current);
      setCaret(nextCaret.current);
      nextCaret.current = undefined;
    }
  }, [text]);

  const pick = (s: Suggestion) => {
    if (!trigger) return;
    nextCaret.current = trigger.start + s.insert.length;
    props.onText(text.slice(0, trigger.start) + s.insert + text.slice(caret));
    setActive(0);
  };

  /** Arrows, Enter, Tab and Escape while the popup is open; true when the key was the popup's. */
  const popupKey = (event: KeyboardEvent): boolean => {
    if (!popupOpen || !trigger) return false;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((activeIndex + step + suggestions.length) % suggestions.length);
      return true;
    }
    const chosen = suggestions[activeIndex]!;
    // Enter on a command already typed in full sends it rather than picking it again.
    const complete = chosen.insert.trimEnd() === text.slice(trigger.start, caret);
    if ((event.key === "Enter" && !event.shiftKey && !complete) || event.key === "Tab") {
      pick(chosen);
      return true;
    }
    if (event.key === "Escape") {
      setDismissed(triggerKey);
      return true;
    }
    return false;
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.isComposing) return;
    if (popupKey(event)) {
      event.preventDefault();
    } else if (matches(event, "mod+enter")) {
      event.preventDefault();
      props.onSend(true);
    } else if (event.key === "Enter" && !event.shiftKey && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      setDismissed(undefined);
      props.onSend(false);
    } else if (event.key === "Escape" && props.onEscape()) {
      event.preventDefault();
    }
  };

  return (
    <div class="composer-input">
      {popupOpen && (
        <SuggestionList
          id={listId}
          label={wanted.kind === "file" ? "Files" : "Commands"}
          items={suggestions}
          active={activeIndex}
          onPick={(s) => {
            pick(s);
            textarea.current?.focus();
          }}
        />
      )}
      <textarea
        ref={textarea}
        aria-label="Message"
        aria-describedby={props.describedBy}
        aria-autocomplete="list"
        aria-controls={popupOpen ? listId : undefined}
        aria-activedescendant={popupOpen ? `${listId}-${activeIndex}` : undefined}
        rows={2}
        placeholder={props.placeholder}
        value={text}
        onInput={(e) => {
          setCaret(e.currentTarget.selectionStart);
          props.onText(e.currentTarget.value);
        }}
        onKeyDown={onKeyDown}
        onKeyUp={(e) => setCaret(e.currentTarget.selectionStart)}
        onClick={(e) => setCaret(e.currentTarget.selectionStart)}
        onPaste={(e) => {
          const files = filesOf(e.clipboardData);
          if (files.length === 0) return;
          e.preventDefault();
          props.onFiles(files);
        }}
      />
    </div>
  );
}
