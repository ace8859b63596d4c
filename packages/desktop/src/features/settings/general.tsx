import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { theme, type ThemeChoice } from "../../state/app-state.js";
import { NotifySetting } from "../attention/notify-setting.js";
import { reportError, toast } from "../../state/toasts.js";
import { Button } from "../../ui/button.js";
import { formatValue, parseInput, settingRows, type ConfigRead, type Scope, type SettingRow } from "./config-model.js";
import { conflictText, isConflict } from "./config-write.js";
import { useLoad } from "./load.js";
import { idOf, LoadGate, Section, Switch, Warnings } from "./parts.js";
import { settings, settingsCwd } from "./store.js";

/** The page's theme, then every setting config/read knows, with where its value comes from. */
export function GeneralTab(): JSX.Element {
  const cwd = settingsCwd.value;
  const loaded = useLoad(() => settings.readConfig(), [cwd]);
  return (
    <>
      <Section title="Appearance">
        <div class="field settings-inline">
          <label for="settings-theme">Theme of this page</label>
          <select id="settings-theme" value={theme.value} onChange={(e) => (theme.value = e.currentTarget.value as ThemeChoice)}>
            <option value="system">Follow the system</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </div>
        <NotifySetting />
      </Section>
      <LoadGate loaded={loaded} what="the settings">
        {(read) => <SettingsEditor read={read} cwd={cwd} reload={loaded.reload} />}
      </LoadGate>
    </>
  );
}

function SettingsEditor({ read, cwd, reload }: { read: ConfigRead; cwd: string | undefined; reload: () => void }): JSX.Element {
  const [chosenScope, setScope] = useState<Scope>("global");
  const scope: Scope = cwd === undefined ? "global" : chosenScope;
  const [conflict, setConflict] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  // Controls stay enabled (disabling one would drop its focus); a change while a write runs is refused.
  const write = async (key: string, value: unknown) => {
    if (busy) {
      toast("Still saving the last change", "warning");
      return;
    }
    setBusy(true);
    setConflict(undefined);
    try {
      await settings.writeConfig(read, scope, [[key, value]]);
      toast(value === null ? `${key} reset` : `${key} saved`, "success");
    } catch (error) {
      if (isConflict(error)) setConflict(conflictText(read, scope, error));
      else reportError(error, `Saving ${key}`);
    } finally {
      setBusy(false);
      reload();
    }
  };

  const rows = settingRows(read);
  return (
    <>
      <Section title="Settings files">
        <dl class="settings-files">
          <dt>Global</dt>
          <dd>
            <code>{read.paths.global}</code> <Version version={read.versions.global} />
          </dd>
          {read.paths.project !== undefined && (
            <>
              <dt>Project</dt>
              <dd>
                <code>{read.paths.project}</code> <Version version={read.versions.project ?? "none"} />
              </dd>
            </>
          )}
        </dl>
        <Warnings warnings={read.errors} title="Problems in the settings files" />
        {cwd !== undefined && (
          <div class="field settings-inline">
            <label for="settings-scope">Save changes to</label>
            <select id="settings-scope" value={scope} onChange={(e) => setScope(e.currentTarget.value as Scope)}>
              <option value="global">Global settings</option>
              <option value="project">Project settings</option>
            </select>
          </div>
        )}
      </Section>
      <Section title="All settings">
        {conflict && (
          <div class="settings-conflict" role="alert">
            {conflict}
          </div>
        )}
        <ul class="settings-list">
          {rows.map((row) => (
            <SettingItem key={row.key} row={row} scope={scope} write={write} />
          ))}
        </ul>
      </Section>
    </>
  );
}

function Version({ version }: { version: string }): JSX.Element {
  return <span class="badge">{version === "none" ? "absent or not read" : `version ${version.slice(0, 8)}`}</span>;
}

function SettingItem({ row, scope, write }: { row: SettingRow; scope: Scope; write: (key: string, value: unknown) => void }): JSX.Element {
  const id = `setting-${idOf(row.key)}`;
  const commit = (text: string) => {
    let value: unknown;
    try {
      value = parseInput(row, text);
    } catch (error) {
      reportError(error, row.key);
      return;
    }
    if (JSON.stringify(value) !== JSON.stringify(row.value)) write(row.key, value);
  };
  return (
    <li class="settings-row" data-key={row.key} data-origin={row.origin}>
      <div class="settings-row-main">
        {row.kind === "boolean" ? (
          <Switch id={id} label={row.key} mono checked={row.value === true} onChange={(on) => write(row.key, on)} />
        ) : (
          <div class="field">
            <label for={id}>{row.key}</label>
            <Control id={id} row={row} commit={commit} />
          </div>
        )}
        <span class={`badge settings-origin-${row.origin}`} title="Where the value comes from">
          {row.origin}
        </span>
      </div>
      <div class="settings-row-meta">
        <span>Default: {JSON.stringify(row.defaultValue) ?? "none"}</span>
        {row.origin === scope && (
          <Button class="btn-small" onClick={() => write(row.key, null)} aria-label={`Reset ${row.key} in ${scope} settings`}>
            Reset
          </Button>
        )}
      </div>
    </li>
  );
}

function Control({ id, row, commit }: { id: string; row: SettingRow; commit: (text: string) => void }): JSX.Element {
  const text = formatValue(row);
  if (row.kind === "choice") {
    return (
      <select id={id} value={text} onChange={(e) => commit(e.currentTarget.value)}>
        {/* A value the files hold that is not one of the words still shows, so nothing changes by accident. */}
        {!(row.choices ?? []).includes(text) && <option value={text}>{text || "not set"}</option>}
        {(row.choices ?? []).map((choice) => (
          <option value={choice}>{choice}</option>
        ))}
      </select>
    );
  }
  if (row.kind === "list") {
    return (
      <textarea id={id} rows={Math.max(2, text.split("\n").length)} value={text} placeholder="One per line" onChange={(e) => commit(e.currentTarget.value)} />
    );
  }
  const change = (e: { currentTarget: HTMLInputElement }) => commit(e.currentTarget.value);
  if (row.kind === "number") return <input id={id} type="number" value={text} onChange={change} />;
  return <input id={id} type="text" value={text} spellcheck={false} placeholder={row.kind === "nullableString" ? "not set" : undefined} onChange={change} />;
}
