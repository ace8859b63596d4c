import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { Button } from "../../ui/button.js";
import { chosenProject, settingsCwd, threadCwd } from "./store.js";

type Mode = "thread" | "global" | "folder";

/** Chooses the project folder the tabs read: the open thread's, none (global), or a typed one. */
export function ProjectPicker(): JSX.Element {
  const chosen = chosenProject.value;
  const fromThread = threadCwd.value;
  const mode: Mode = chosen === null ? "global" : chosen === undefined ? "thread" : "folder";
  const [draft, setDraft] = useState(typeof chosen === "string" ? chosen : "");
  const [editing, setEditing] = useState(false);
  const showFolder = mode === "folder" || editing;

  const pick = (next: Mode) => {
    setEditing(next === "folder");
    if (next === "thread") chosenProject.value = undefined;
    else if (next === "global") chosenProject.value = null;
  };
  const apply = (event: Event) => {
    event.preventDefault();
    const folder = draft.trim();
    if (!folder) return;
    chosenProject.value = folder;
    setEditing(false);
  };

  return (
    <div class="settings-project">
      <div class="field">
        <label for="settings-project-mode">Project</label>
        <select id="settings-project-mode" value={showFolder ? "folder" : mode} onChange={(e) => pick(e.currentTarget.value as Mode)}>
          {fromThread !== undefined && <option value="thread">Open thread's folder ({fromThread})</option>}
          {fromThread === undefined && mode === "thread" && <option value="thread">None (no thread open)</option>}
          <option value="global">Global only (no project)</option>
          <option value="folder">Another folder…</option>
        </select>
      </div>
      {showFolder && (
        <form class="settings-project-folder" onSubmit={apply}>
          <div class="field">
            <label for="settings-project-folder">Project folder (absolute path)</label>
            <input id="settings-project-folder" type="text" value={draft} spellcheck={false} onInput={(e) => setDraft(e.currentTarget.value)} />
          </div>
          <Button type="submit" variant="primary">
            Use folder
          </Button>
        </form>
      )}
      <p class="settings-note" aria-live="polite">
        {settingsCwd.value ? (
          <>
            Reading <code>{settingsCwd.value}</code> over the global settings.
          </>
        ) : (
          "Reading the global settings only."
        )}
      </p>
    </div>
  );
}
