import type { ModelSummary } from "@knightcode/app-server-protocol";

export const refOf = (m: { provider: string; id: string }) => `${m.provider}/${m.id}`;

interface Arranged {
  /** Available models that match, grouped by provider (providers in name order, models in the server's order). */
  groups: Array<{ provider: string; models: ModelSummary[] }>;
  /** The same models in the order the arrow keys walk them. */
  flat: ModelSummary[];
  /** How many models match but cannot run: they stay behind "add a key". */
  unavailable: number;
}

/** Every word of the search must appear in the model's name, provider or id. */
export function arrange(models: readonly ModelSummary[], search: string): Arranged {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const byProvider = new Map<string, ModelSummary[]>();
  let unavailable = 0;
  for (const m of models) {
    const text = `${m.name} ${refOf(m)}`.toLowerCase();
    if (!words.every((w) => text.includes(w))) continue;
    if (!m.available) {
      unavailable++;
      continue;
    }
    let group = byProvider.get(m.provider);
    if (!group) byProvider.set(m.provider, (group = []));
    group.push(m);
  }
  const groups = [...byProvider].sort(([a], [b]) => a.localeCompare(b)).map(([provider, list]) => ({ provider, models: list }));
  return { groups, flat: groups.flatMap((g) => g.models), unavailable };
}
