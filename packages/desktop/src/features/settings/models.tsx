import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { ModelSummary } from "@knightcode/app-server-protocol";
import { screen } from "../../state/app-state.js";
import { reportError, toast } from "../../state/toasts.js";
import { Button } from "../../ui/button.js";
import { conflictText, isConflict } from "./config-write.js";
import { settings } from "./store.js";
import { useLoad } from "./load.js";
import { idOf, LoadGate, Section } from "./parts.js";

type Availability = "all" | "available" | "unavailable";

/** The server knows hundreds of models: they are drawn a page at a time so the tab stays quick. */
export const MODELS_PAGE = 50;

const openAccounts = () => (screen.value = { kind: "settings", tab: "accounts" });

/** model/list with its own filters and the default model (global settings); the keys behind availability are under Accounts. */
export function ModelsTab(): JSX.Element {
  const [availability, setAvailability] = useState<Availability>("all");
  const [provider, setProvider] = useState("");
  const [shown, setShown] = useState(MODELS_PAGE);
  const params = {
    ...(availability === "all" ? {} : { available: availability === "available" }),
    ...(provider ? { provider } : {}),
  };
  const models = useLoad(() => settings.listModels(params), [availability, provider]);
  useEffect(() => setShown(MODELS_PAGE), [availability, provider]);
  // The provider choices come from the whole list, so a filter never hides its own options.
  const everything = useLoad(() => settings.listModels(), []);
  const config = useLoad(() => settings.readGlobalConfig(), []);
  // A stored or removed key changes which models are available.
  useEffect(
    () =>
      settings.onAccountUpdated(() => {
        models.reload();
        everything.reload();
      }),
    [],
  );

  const providers = [...new Set((everything.data?.models ?? []).map((m) => m.provider))].sort();
  const defaults = config.data?.settings as { defaultProvider?: unknown; defaultModel?: unknown } | undefined;
  const isDefault = (m: ModelSummary) => defaults?.defaultProvider === m.provider && defaults?.defaultModel === m.id;

  const makeDefault = async (m: ModelSummary) => {
    const read = config.data;
    if (!read) return;
    try {
      await settings.makeDefault(read, m);
      toast(`New threads start with ${m.name}`, "success");
    } catch (error) {
      if (isConflict(error)) toast(conflictText(read, "global", error), "error");
      else reportError(error, "Setting the default model");
    } finally {
      config.reload();
    }
  };

  return (
    <Section title="Models">
      <div class="settings-filters">
        <div class="field">
          <label for="models-availability">Show</label>
          <select id="models-availability" value={availability} onChange={(e) => setAvailability(e.currentTarget.value as Availability)}>
            <option value="all">All models</option>
            <option value="available">Available only</option>
            <option value="unavailable">Unavailable only</option>
          </select>
        </div>
        <div class="field">
          <label for="models-provider">Provider</label>
          <select id="models-provider" value={provider} onChange={(e) => setProvider(e.currentTarget.value)}>
            <option value="">All providers</option>
            {providers.map((p) => (
              <option value={p}>{p}</option>
            ))}
          </select>
        </div>
      </div>
      <p class="settings-note">
        A model marked unavailable needs a key or a sign-in for its provider.{" "}
        <Button class="btn-small" onClick={openAccounts}>
          Open Accounts
        </Button>
      </p>
      <LoadGate loaded={models} what="the models">
        {({ models: list }) =>
          list.length === 0 ? (
            <p class="settings-note">No model matches.</p>
          ) : (
            <>
              <p class="settings-note" aria-live="polite">
                Showing {Math.min(shown, list.length)} of {list.length} models.
              </p>
              <ul class="settings-list" aria-label="Models">
                {list.slice(0, shown).map((m) => (
                  <li class="settings-row" data-model={`${m.provider}/${m.id}`} data-available={String(m.available)}>
                    <div class="settings-row-main">
                      <div>
                        <h3 class="settings-row-title">{m.name}</h3>
                        <code class="settings-row-sub">
                          {m.provider}/{m.id}
                        </code>
                      </div>
                      <span class={`badge ${m.available ? "settings-ok" : "badge-waiting"}`}>{m.available ? "available" : "unavailable"}</span>
                      {isDefault(m) && <span class="badge badge-running">default</span>}
                    </div>
                    {m.unavailableReason && <p class="settings-row-reason">{m.unavailableReason.message}</p>}
                    <div class="settings-row-meta">
                      <span>{m.contextWindow.toLocaleString()} tokens context</span>
                      <span>
                        ${m.cost.input} in / ${m.cost.output} out per million
                      </span>
                      <span>thinking: {m.reasoning ? m.thinkingLevels.join(", ") : "none"}</span>
                      <span>{m.source}</span>
                      {/* A model without credentials cannot run: it is never offered as the default. */}
                      {m.available && !isDefault(m) && (
                        <Button
                          class="btn-small"
                          id={`default-${idOf(m.provider)}-${idOf(m.id)}`}
                          aria-label={`Make ${m.name} (${m.provider}) the default`}
                          onClick={() => void makeDefault(m)}
                        >
                          Make default
                        </Button>
                      )}
                    </div>
                  </li>
                ))}
              </ul>
              {list.length > shown && (
                <div class="settings-actions settings-more">
                  <Button onClick={() => setShown(shown + MODELS_PAGE)}>Show {Math.min(MODELS_PAGE, list.length - shown)} more</Button>
                </div>
              )}
            </>
          )
        }
      </LoadGate>
    </Section>
  );
}
