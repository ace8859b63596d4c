import { signal } from "@preact/signals";
import type { JSX } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { useShortcut } from "../../ui/keys.js";
import { Modal } from "../../ui/modal.js";
import { commands, type Entry, filterEntries, threads } from "./commands.js";
import "./palette.css";

/** Whether the palette shows; Ctrl/Cmd+K toggles it from anywhere. */
export const paletteOpen = signal(false);

/** At most this many threads are listed: typing narrows them. */
const MAX_THREADS = 50;

/** Rendered once by the shell; owns the Ctrl/Cmd+K shortcut. */
export function Palette(): JSX.Element | null {
  useShortcut("mod+k", () => {
    paletteOpen.value = !paletteOpen.value;
  });
  if (!paletteOpen.value) return null;
  return <PaletteDialog onClose={() => (paletteOpen.value = false)} />;
}

/**
 * A dialog holding a combobox and its listbox: the focus stays in the
 * input, which points at the active option; arrows move, Enter runs,
 * Escape closes (the dialog puts the focus back where it was).
 */
function PaletteDialog({ onClose }: { onClose: () => void }): JSX.Element {
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const list = useRef<HTMLUListElement>(null);
  const entries = [...filterEntries(commands(), query), ...filterEntries(threads(), query).slice(0, MAX_THREADS)];
  const activeIndex = Math.min(active, entries.length - 1);
  const optionId = (index: number) => `palette-option-${index}`;

  useLayoutEffect(() => {
    list.current?.querySelector(`#${optionId(activeIndex)}`)?.scrollIntoView({ block: "nearest" });
  }, [activeIndex]);

  const run = (entry: Entry | undefined) => {
    if (!entry) return;
    onClose();
    entry.run();
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.isComposing) return;
    const count = entries.length;
    if ((event.key === "ArrowDown" || event.key === "ArrowUp") && count > 0) {
      event.preventDefault();
      setActive((activeIndex + (event.key === "ArrowDown" ? 1 : -1) + count) % count);
    } else if (event.key === "Enter") {
      event.preventDefault();
      run(entries[activeIndex]);
    }
  };

  return (
    <Modal title="Command palette" onClose={onClose} class="palette">
      <input
        class="palette-input"
        type="text"
        role="combobox"
        aria-label="Thread or command"
        aria-expanded="true"
        aria-controls="palette-list"
        aria-autocomplete="list"
        aria-activedescendant={entries.length > 0 ? optionId(activeIndex) : undefined}
        placeholder="Search threads and commands"
        value={query}
        autofocus
        spellcheck={false}
        autocomplete="off"
        onInput={(e) => {
          setQuery(e.currentTarget.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
      />
      <ul ref={list} id="palette-list" class="palette-list" role="listbox" aria-label="Threads and commands">
        {entries.map((entry, index) => (
          // The input keeps the focus and points here; a press runs the entry as Enter would.
          <li
            key={entry.id}
            id={optionId(index)}
            role="option"
            aria-selected={index === activeIndex}
            class="palette-option"
            data-kind={entry.kind}
            onMouseDown={(e) => {
              e.preventDefault();
              run(entry);
            }}
          >
            <span class="palette-kind">{entry.kind === "thread" ? "Thread" : "Command"}</span>
            <span class="palette-label">{entry.label}</span>
            {entry.detail && <span class="palette-detail">{entry.detail}</span>}
          </li>
        ))}
      </ul>
      {entries.length === 0 && (
        <p class="palette-empty" role="status">
          Nothing matches “{query}”.
        </p>
      )}
    </Modal>
  );
}
