import type { Api, Model } from "@mariozechner/pi-ai";
import type { ModelSummary } from "@knightcode/schema/threads";

type ModelSource = ModelSummary["source"];
type UnavailableReason = NonNullable<ModelSummary["unavailableReason"]>;

/** One provider's place in the registry; `models` reads a built-in provider's part of the catalogue. */
export interface ProviderGroup {
  provider: string;
  source: ModelSource;
  apiKey?: string;
  models(): Model<Api>[];
}

/** A model as the registry lists it: the first entry of its provider and id, with whether its provider has credentials. */
export interface DistinctModel {
  model: Model<Api>;
  source: ModelSource;
  available: boolean;
  unavailableReason?: UnavailableReason;
}

/**
 * Every model once, in the groups' order: an earlier entry shadows a later
 * one of the same provider and id. With `availableOnly`, a built-in group
 * without credentials is passed over unread: built-in groups come last,
 * each names a provider once, and its models carry that name, so they could
 * shadow nothing still to come. Any other group without credentials is
 * still read, since its models may shadow a later group's.
 */
export function* distinctModels(
  groups: readonly ProviderGroup[],
  isAvailable: (group: ProviderGroup) => boolean,
  whyNot: (group: ProviderGroup) => UnavailableReason,
  options: { availableOnly?: boolean } = {},
): Generator<DistinctModel> {
  const seen = new Set<string>();
  for (const group of groups) {
    const available = isAvailable(group);
    if (!available && options.availableOnly && group.source === "builtin") continue;
    const unavailableReason = available ? undefined : whyNot(group);
    for (const model of group.models()) {
      const key = `${model.provider}\u0000${model.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (!available && options.availableOnly) continue;
      yield { model, source: group.source, available, ...(unavailableReason ? { unavailableReason } : {}) };
    }
  }
}
