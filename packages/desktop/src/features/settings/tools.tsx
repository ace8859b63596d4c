import type { JSX } from "preact";
import type { ToolInfo, ToolSettingsEntry } from "@knightcode/app-server-protocol";
import { reportError, toast } from "../../state/toasts.js";
import { conflictText, isConflict } from "./config-write.js";
import { useLoad } from "./load.js";
import { idOf, LoadGate, Section, Switch } from "./parts.js";
import { settings, settingsCwd } from "./store.js";

/** tool/list for a new thread here, each offered-or-not switch writing defaultTools, and the tools.json entries. */
export function ToolsTab(): JSX.Element {
  const cwd = settingsCwd.value;
  const tools = useLoad(() => settings.readTools(), [cwd]);
  const config = useLoad(() => settings.readConfig(), [cwd]);
  const toolSettings = useLoad(() => settings.readToolSettings(), []);

  const offer = async (tool: ToolInfo, on: boolean) => {
    const read = config.data;
    if (!read) return;
    const scope = read.origins.defaultTools === "project" ? "project" : "global";
    try {
      await settings.offerTool(read, tool.name, on);
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
      await settings.setToolEnabled(entry.name, on);
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
