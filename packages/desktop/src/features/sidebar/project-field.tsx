import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { sidebarModel } from "./store.js";

/** How long typing pauses before the folder is asked for: one request per pause, not per key. */
const DEBOUNCE_MS = 120;
/** Most subfolders asked for at once; the typed prefix filters them here. */
const LISTED = 500;
const LIST_ID = "start-project-options";

interface Option {
  /** What the field holds once it is taken. */
  value: string;
  label: string;
  /** A folder's children are listed next; a recent project is the choice itself. */
  folder: boolean;
}

/** The folder whose subfolders complete `typed`, and the start of the name typed in it; undefined for no listing. */
export function splitTyped(typed: string): { parent: string; prefix: string } | undefined {
  const at = typed.lastIndexOf("/");
  if (at < 0) return undefined;
  return { parent: typed.slice(0, at + 1), prefix: typed.slice(at + 1) };
}

/**
 * The subfolders of the typed path's parent folder, by directory/list,
 * asked after a pause in typing. An answer for a path the field no longer
 * holds is dropped; the last listing is kept, so typing more of a name
 * filters it without asking again.
 */
function useFolderOptions(typed: string, recent: string[]): Option[] {
  const [listing, setListing] = useState<{ parent: string; names: { name: string; path: string }[] } | undefined>(undefined);
  const latest = useRef(typed);
  latest.current = typed;
  const split = splitTyped(typed);
  const parent = split?.parent;

  useEffect(() => {
    if (parent === undefined || listing?.parent === parent) return;
    let live = true;
    const timer = setTimeout(() => {
      sidebarModel.listFolders(parent, LISTED).then(
        (answer) => {
          if (live && splitTyped(latest.current)?.parent === parent) setListing({ parent, names: answer.directories });
        },
        // A folder that is not there (yet) offers nothing; the field says nothing until the thread starts.
        () => {
          if (live && splitTyped(latest.current)?.parent === parent) setListing({ parent, names: [] });
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [parent, listing?.parent]);

  if (typed.trim() === "") return recent.map((cwd) => ({ value: cwd, label: cwd, folder: false }));
  if (split === undefined || listing?.parent !== split.parent) return [];
  const prefix = split.prefix.toLowerCase();
  return listing.names.filter((d) => d.name.toLowerCase().startsWith(prefix)).map((d) => ({ value: `${d.path}/`, label: d.name, folder: true }));
}

/**
 * The first screen's project folder: a combobox that offers the recent
 * projects while it is empty and the matching subfolders of the typed
 * folder as one types. The focus stays in the field (aria-activedescendant
 * points at the active option); Enter or Tab takes it, a folder's own
 * subfolders are offered next, and Escape closes the list.
 */
export function ProjectField({ value, recent, onChange }: { value: string; recent: string[]; onChange: (value: string) => void }): JSX.Element {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const options = useFolderOptions(value, recent);
  const shown = open && options.length > 0;
  const current = shown && active >= 0 && active < options.length ? active : -1;
  // The active option stays in sight as the arrows move it through a long list.
  useEffect(() => {
    if (current >= 0) document.getElementById(`${LIST_ID}-${current}`)?.scrollIntoView({ block: "nearest" });
  }, [current]);

  const type = (text: string) => {
    onChange(text);
    setActive(-1);
    setOpen(true);
  };
  const take = (option: Option) => {
    onChange(option.value);
    setActive(-1);
    setOpen(option.folder);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.isComposing) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!shown) {
        setOpen(true);
        return;
      }
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((current + step + options.length + (current < 0 && step < 0 ? 1 : 0)) % options.length);
    } else if ((event.key === "Enter" || event.key === "Tab") && current >= 0 && !event.shiftKey) {
      event.preventDefault();
      take(options[current]!);
    } else if (event.key === "Escape" && shown) {
      event.preventDefault();
      event.stopPropagation();
      setOpen(false);
    }
  };

  return (
    <div class="field start-project">
      <label for="start-project">Project folder</label>
      <input
        id="start-project"
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls={LIST_ID}
        aria-activedescendant={current >= 0 ? `${LIST_ID}-${current}` : undefined}
        value={value}
        spellcheck={false}
        autocomplete="off"
        onInput={(e) => type(e.currentTarget.value)}
        onKeyDown={onKeyDown}
        onBlur={() => setOpen(false)}
      />
      <ul id={LIST_ID} class="start-options" role="listbox" aria-label={value.trim() === "" ? "Recent projects" : "Folders"} hidden={!shown}>
        {shown &&
          options.map((option, i) => (
            <li
              key={option.value}
              id={`${LIST_ID}-${i}`}
              role="option"
              aria-selected={i === current}
              class="start-option"
              title={option.value}
              // A pointer picks without taking the focus from the field.
              onMouseDown={(e) => {
                e.preventDefault();
                take(option);
              }}
            >
              {option.label}
              {option.folder ? "/" : ""}
            </li>
          ))}
      </ul>
    </div>
  );
}
