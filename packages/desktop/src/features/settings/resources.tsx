import type { JSX } from "preact";
import type { ResourceInfo, ResourceType } from "@knightcode/app-server-protocol";
import { reportError, toast } from "../../state/toasts.js";
import { useLoad } from "./load.js";
import { idOf, LoadGate, Section, Switch } from "./parts.js";
import { settings, settingsCwd } from "./store.js";

const TITLES: Record<ResourceType, string> = { extensions: "Extensions", skills: "Skills", prompts: "Prompt templates", themes: "Themes" };

/** resource/list grouped by kind, each with where it came from and an on/off switch (resource/set). */
export function ResourcesTab(): JSX.Element {
  const cwd = settingsCwd.value;
  const loaded = useLoad(() => settings.readResources(), [cwd]);

  const set = async (resource: ResourceInfo, enabled: boolean) => {
    try {
      await settings.setResource(resource, enabled);
      toast(`${resource.name} ${enabled ? "on" : "off"} for threads loaded from now on`, "success");
    } catch (error) {
      reportError(error, `Switching ${resource.name}`);
    } finally {
      loaded.reload();
    }
  };

  return (
    <LoadGate loaded={loaded} what="the resources">
      {({ resources }) => {
        // Groups in the order the answer first names each kind.
        const groups = new Map<ResourceType, ResourceInfo[]>();
        for (const r of resources) groups.set(r.type, [...(groups.get(r.type) ?? []), r]);
        if (groups.size === 0) return <p class="settings-note">No extension, skill, prompt template or theme was found.</p>;
        return [...groups].map(([type, list]) => (
          <Section title={TITLES[type]}>
            <ul class="settings-list" aria-label={TITLES[type]}>
              {list.map((r) => (
                <li class="settings-row" data-resource={r.path} data-enabled={String(r.enabled)}>
                  <div class="settings-row-main">
                    <Switch id={`resource-${idOf(r.path)}`} label={r.name} checked={r.enabled} onChange={(on) => void set(r, on)} />
                    <span class="badge">{r.scope}</span>
                    <span class="badge">{r.origin}</span>
                    {r.shadowedBy && <span class="badge badge-waiting">shadowed</span>}
                  </div>
                  {r.description && <p class="settings-row-reason">{r.description}</p>}
                  <p class="settings-row-sub">
                    <code>{r.path}</code> from <code>{r.source}</code>
                    {r.shadowedBy && (
                      <>
                        ; <code>{r.shadowedBy}</code> wins over it
                      </>
                    )}
                  </p>
                </li>
              ))}
            </ul>
          </Section>
        ));
      }}
    </LoadGate>
  );
}
