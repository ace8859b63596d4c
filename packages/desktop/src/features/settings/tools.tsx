import type { JSX } from "preact";
import type { ToolInfo, ToolSettingsEntry } from "@knightcode/app-server-protocol";
import { conn } from "../../connection/connection.js";
import { reportError, toast } from "../../state/toasts.js";
import type { Scope } from "./config-model.js";
import { conflictText, isConflict, writeSettings } from "./config-write.js";
import { useLoad } from "./load.js";
import { idOf, LoadGate, Section, Switch } from "./parts.js";
import { cwdParams, settingsCwd } from "./project.js";

/**
 * The defaultTools patterns with one tool switched: its own patterns go,
 * then `-name` removes it, or the name is added back (plain when the list
 * chooses the set outright, `+name` when it adjusts the built-in set).
 */
export function switchTool(patterns: readonly string[], name: string, offer: boolean): string[] {
  const rest = patterns.filter((p) => p !== name && p !== `+${name}` && p !== `-${name}`);
  if (!offer) return [...rest, `-${name}`];
  const choosesOutright = rest.some((p) => !p.startsWith("+") && !p.startsWith("-"));
  return [...rest, choosesOutright ? name : `+${name}`];
}

/** tool/list for a new thread here, each offered-or-not switch writing defaultTools, and the tools.json entries. */
export function ToolsTab(): JSX.Element {
  const cwd = settingsCwd.value;
  const tools = useLoad(() => conn().request("tool/list", cwdParams()), [cwd]);
  const config = useLoad(() => conn().request("config/read", cwdParams()), [cwd]);
  const toolSettings = useLoad(() => conn().request("tool/settings/read", {}), []);

  const offer = async (tool: ToolInfo, on: boolean) => {
    const read = config.data;
    if (!read) return;
    // Write where the list in force comes from: a project's list replaces the global one whole.
    const scope: Scope = read.origins.defaultTools === "project" ? "project" : "global";
    const current = (read.settings as { defaultTools?: unknown }).defaultTools;
    const patterns = Array.isArray(current) ? current.map(String) : [];
    try {
      await writeSettings(read, scope, [["defaultTools", switchTool(patterns, tool.name, on)]], cwd);
      toast(`${tool.name} ${on ? "offered" : "no longer offered"} to new threads`, "success");
    } catch (error) {
      if (isConflict(error)) toast(conflictText(read, scope, error), "error");
      else reportError(error, `Changing ${tool.name}`);
    } finally {
      config.reload();
      tools.reload();
    }
  };

  const setEnabled = async (entry: ToolSettingsEntry, on: boolean) => {
    try {
      await conn().request("tool/settings/write", { name: entry.name, key: "enabled", value: on });
    } catch (error) {
      reportError(error, `Changing ${entry.name}`);
    } finally {
      toolSettings.reload();
      tools.reload();
    }
  };

  return (
    <>
      <Section title="Tools of a new thread">
        <p class="settings-note">Switching a tool writes the defaultTools setting; threads already running keep their tools.</p>
        <LoadGate loaded={tools} what="the tools">
          {(answer) => (
            <ul class="settings-list" aria-label="Tools">
              {answer.tools.map((tool) => {
                const offered = answer.defaultTools.includes(tool.name);
                return (
                  <li class="settings-row" data-tool={tool.name} data-offered={String(offered)}>
                    <div class="settings-row-main">
                      <Switch
                        id={`tool-${idOf(tool.name)}`}
                        label={tool.name}
                        mono
                        checked={offered}
                        disabled={config.data === undefined}
                        onChange={(on) => void offer(tool, on)}
                      />
                      <span class="badge">{tool.source}</span>
                    </div>
                    <p class="settings-row-reason">{tool.description}</p>
                  </li>
                );
              })}
            </ul>
          )}
        </LoadGate>
      </Section>
      <Section title="Tool settings (tools.json)">
        <LoadGate loaded={toolSettings} what="tools.json">
          {(answer) => (
            <ul class="settings-list" aria-label="Tool settings">
              {answer.tools.map((entry) => (
                <li class="settings-row" data-tool-setting={entry.name}>
                  <div class="settings-row-main">
                    <Switch
                      id={`tool-setting-${idOf(entry.name)}`}
                      label={`Enable ${entry.name}`}
                      checked={entry.enabled}
                      onChange={(on) => void setEnabled(entry, on)}
                    />
                  </div>
                  {Object.keys(entry.settings).length > 0 && (
                    <dl class="settings-files">
                      {Object.entries(entry.settings).map(([key, value]) => (
                        <>
                          <dt>{key}</dt>
                          <dd>
                            <code>{value}</code>
                          </dd>
                        </>
                      ))}
                    </dl>
                  )}
                </li>
              ))}
            </ul>
          )}
        </LoadGate>
      </Section>
    </>
  );
}
