import type { JSX } from "preact";
import { useRef } from "preact/hooks";
import { screen, type SettingsTab } from "../../state/app-state.js";
import { Button } from "../../ui/button.js";
import { AccountsTab } from "./accounts.js";
import { GeneralTab } from "./general.js";
import { McpTab } from "./mcp.js";
import { ModelsTab } from "./models.js";
import { ProjectPicker } from "./project-picker.js";
import { ResourcesTab } from "./resources.js";
import { ToolsTab } from "./tools.js";
import { TrustTab } from "./trust.js";
import "./settings.css";

const TABS: Array<{ id: SettingsTab; label: string }> = [
  { id: "general", label: "General" },
  { id: "models", label: "Models" },
  { id: "accounts", label: "Accounts" },
  { id: "mcp", label: "MCP" },
  { id: "tools", label: "Tools" },
  { id: "resources", label: "Resources" },
  { id: "trust", label: "Trust" },
];

const PANELS: Record<SettingsTab, () => JSX.Element> = {
  general: GeneralTab,
  models: ModelsTab,
  accounts: AccountsTab,
  mcp: McpTab,
  tools: ToolsTab,
  resources: ResourcesTab,
  trust: TrustTab,
};

/** Settings, models, accounts, MCP servers, tools, resources and project trust. */
export function SettingsScreen({ tab }: { tab: SettingsTab }): JSX.Element {
  const Panel = PANELS[tab];
  return (
    <section class="settings" aria-labelledby="settings-title" data-tab={tab}>
      <header class="settings-header">
        <Button icon="undo" onClick={() => (screen.value = { kind: "thread" })}>
          Back to threads
        </Button>
        <h1 id="settings-title">Settings</h1>
      </header>
      <ProjectPicker />
      <Tabs current={tab} />
      <div class="settings-panel" role="tabpanel" id={`settings-panel-${tab}`} aria-labelledby={`settings-tab-${tab}`} tabIndex={0}>
        <Panel />
      </div>
    </section>
  );
}

/** A tab list with arrow-key movement: Left/Right step, Home/End jump; the focused tab is the shown one. */
function Tabs({ current }: { current: SettingsTab }): JSX.Element {
  const list = useRef<HTMLDivElement>(null);
  const select = (id: SettingsTab, focus: boolean) => {
    screen.value = { kind: "settings", tab: id };
    if (focus) queueMicrotask(() => list.current?.querySelector<HTMLElement>(`#settings-tab-${id}`)?.focus());
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const at = TABS.findIndex((t) => t.id === current);
    const next =
      event.key === "ArrowRight"
        ? (at + 1) % TABS.length
        : event.key === "ArrowLeft"
          ? (at - 1 + TABS.length) % TABS.length
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? TABS.length - 1
              : -1;
    if (next < 0) return;
    event.preventDefault();
    select(TABS[next]!.id, true);
  };
  return (
    <div class="settings-tabs" role="tablist" aria-label="Settings sections" ref={list} onKeyDown={onKeyDown}>
      {TABS.map((t) => (
        <button
          type="button"
          role="tab"
          id={`settings-tab-${t.id}`}
          aria-selected={t.id === current}
          aria-controls={t.id === current ? `settings-panel-${t.id}` : undefined}
          tabIndex={t.id === current ? 0 : -1}
          class="settings-tab"
          onClick={() => select(t.id, false)}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}
