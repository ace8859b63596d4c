// tools.json: our own tools' settings (`tools`) and the classifier gate
// (`classifiers.gate`). Unknown keys are kept: a tool's entry holds its own.
import { type Static, Type } from "typebox";

export const DEFAULT_CLASSIFIER_TIMEOUT_MS = 20_000;
export const MAX_CLASSIFIER_TIMEOUT_MS = 600_000;
export const MAX_CLASSIFIER_INSTRUCTIONS = 4_000;

const trueOrFalse = { problem: "must be true or false" } as const;

/** One tool's entry in `tools`; each is checked on its own, so one bad entry leaves the others working. */
export const ToolEntry = Type.Object({ enabled: Type.Optional(Type.Boolean(trueOrFalse)) }, { problem: "must be an object" });
export type ToolEntry = Static<typeof ToolEntry>;

export const ToolsSection = Type.Record(Type.String(), Type.Unknown(), { problem: "must be an object" });

/** `classifiers` up to the one switch: only `enabled: true` makes the rest of the gate matter. */
export const ClassifiersSwitch = Type.Object(
  { gate: Type.Optional(Type.Object({ enabled: Type.Optional(Type.Boolean(trueOrFalse)) }, { problem: "must be an object" })) },
  { problem: "must be an object" },
);

const ModelRef = Type.Object(
  { provider: Type.String({ minLength: 1 }), id: Type.String({ minLength: 1 }) },
  { problem: 'must be {"provider": "...", "id": "..."}' },
);

/** A switched-on gate: the model that judges calls, the user's own policy, and how long one judgement may take. */
export const ClassifierGateEntry = Type.Object({
  enabled: Type.Literal(true),
  model: ModelRef,
  instructions: Type.Optional(
    Type.String({
      maxLength: MAX_CLASSIFIER_INSTRUCTIONS,
      problem: "must be text",
      problems: { maxLength: `is longer than ${MAX_CLASSIFIER_INSTRUCTIONS} characters` },
    }),
  ),
  timeoutMs: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_CLASSIFIER_TIMEOUT_MS,
      default: DEFAULT_CLASSIFIER_TIMEOUT_MS,
      problem: `must be a whole number of milliseconds from 1 to ${MAX_CLASSIFIER_TIMEOUT_MS}`,
    }),
  ),
});
export type ClassifierGateEntry = Static<typeof ClassifierGateEntry>;
