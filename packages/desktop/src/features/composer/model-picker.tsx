import type { ModelSummary } from "@knightcode/app-server-protocol";
import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { screen } from "../../state/app-state.js";
import { arrange, refOf } from "./model-match.js";
import "./model-picker.css";

const ADD_KEY = "add-key";

/**
 * The model of one thread: a button that opens a searchable list. The
 * search box keeps the keyboard (a combobox): arrows move through the
 * matches, Enter picks, Escape closes. Models without credentials are not
 * offered; one entry counts them and opens the accounts settings.
 */
export function ModelPicker({
  id,
  models,
  current,
  disabled,
  onPick,
}: {
  id: string;
  models: readonly ModelSummary[] | undefined;
  current: string;
  disabled: boolean;
  onPick: (model: ModelSummary) => void;
}): JSX.Element {
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState("");
  const [active, setActive] = useState(0);
  const root = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const { groups, flat, unavailable } = useMemo(() => arrange(models ?? [], search), [models, search]);
  const entries = flat.length + (unavailable > 0 ? 1 : 0);
  const at = Math.min(active, Math.max(entries - 1, 0));
  const optionId = (index: number) => (index < flat.length ? `${id}-option-${index}` : `${id}-${ADD_KEY}`);
  const chosen = models?.find((m) => refOf(m) === current);

  // Before the browser takes its next event: what is typed right after opening goes to the search.
  useLayoutEffect(() => {
    if (open) input.current?.focus();
  }, [open]);
  useEffect(() => {
    if (open && entries > 0) document.getElementById(optionId(at))?.scrollIntoView({ block: "nearest" });
  }, [open, at, entries]);

  const close = (refocus: boolean) => {
    setOpen(false);
    setSearch("");
    setActive(0);
    if (refocus) trigger.current?.focus();
  };
  const choose = (index: number) => {
    const model = flat[index];
    if (model) {
      close(true);
      if (refOf(model) !== current) onPick(model);
    } else if (index === flat.length && unavailable > 0) {
      close(false);
      screen.value = { kind: "settings", tab: "accounts" };
    }
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const step = { ArrowDown: 1, ArrowUp: -1, PageDown: 8, PageUp: -8 }[event.key];
    if (step !== undefined && entries > 0) {
      event.preventDefault();
      setActive(Math.min(Math.max(at + step, 0), entries - 1));
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (entries > 0) choose(at);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close(true);
    }
  };
  // A pointer picks on press, so the search box never loses the focus in between.
  const pointerPick = (event: MouseEvent, index: number) => {
    event.preventDefault();
    choose(index);
  };
  // Focus leaving the picker (a click elsewhere, Tab) closes it.
  const onFocusOut = (event: FocusEvent) => {
    if (open && !root.current?.contains(event.relatedTarget as Node | null)) close(false);
  };

  let index = 0;
  return (
    <div class="composer-picker model-picker" ref={root} onFocusOut={onFocusOut}>
      <span id={`${id}-label`}>Model</span>
      <button
        ref={trigger}
        type="button"
        id={id}
        class="model-picker-button"
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-labelledby={`${id}-label ${id}`}
        disabled={disabled}
        onClick={() => (open ? close(true) : setOpen(true))}
      >
        {chosen?.name ?? (current || "No model chosen")}
      </button>
      {open && (
        <div class="model-picker-popup">
          <input
            ref={input}
            type="text"
            role="combobox"
            class="model-picker-search"
            aria-label="Search models"
            aria-expanded="true"
            aria-controls={`${id}-list`}
            aria-autocomplete="list"
            aria-activedescendant={entries > 0 ? optionId(at) : undefined}
            placeholder="Search models"
            autocomplete="off"
            spellcheck={false}
            value={search}
            onKeyDown={onKeyDown}
            onInput={(e) => {
              setSearch(e.currentTarget.value);
              setActive(0);
            }}
          />
          <div class="model-picker-list" role="listbox" id={`${id}-list`} aria-label="Models">
            {models === undefined && <p class="model-picker-note">Loading the models…</p>}
            {models !== undefined && flat.length === 0 && <p class="model-picker-note">No available model matches.</p>}
            {groups.map((g) => (
              <div role="group" key={g.provider} aria-labelledby={`${id}-group-${g.provider}`}>
                <div class="model-picker-group" id={`${id}-group-${g.provider}`} role="presentation">
                  {g.provider}
                </div>
                {g.models.map((m) => {
                  const mine = index++;
                  const isCurrent = refOf(m) === current;
                  return (
                    <div
                      key={refOf(m)}
                      id={optionId(mine)}
                      role="option"
                      class="model-picker-option"
                      aria-selected={mine === at}
                      data-model={refOf(m)}
                      onMouseDown={(e) => pointerPick(e, mine)}
                      onMouseMove={() => mine !== at && setActive(mine)}
                    >
                      <span class="model-picker-name">{m.name}</span>
                      {m.name !== m.id && <span class="model-picker-id">{m.id}</span>}
                      {isCurrent && <span class="model-picker-current">current</span>}
                    </div>
                  );
                })}
              </div>
            ))}
            {unavailable > 0 && (
              <div
                id={optionId(flat.length)}
                role="option"
                class="model-picker-option model-picker-add-key"
                aria-selected={at === flat.length}
                onMouseDown={(e) => pointerPick(e, flat.length)}
                onMouseMove={() => at !== flat.length && setActive(flat.length)}
              >
                Add a key… {unavailable} more {unavailable === 1 ? "model needs" : "models need"} one
              </div>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
