import type { JSX } from "preact";
import type { SettingsTab } from "../../state/app-state.js";

/** Settings, models, MCP servers, tools, resources and project trust. */
export function SettingsScreen({ tab }: { tab: SettingsTab }): JSX.Element {
  return <section class="settings" aria-label="Settings" data-tab={tab} />;
}
