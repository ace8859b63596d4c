// models.json: custom providers and their models. A bad provider or model
// is skipped with a warning naming it; what is valid still loads.
import { type Static, Type } from "typebox";

export const MODEL_APIS = [
  "openai-completions",
  "openai-responses",
  "anthropic-messages",
  "google-generative-ai",
  "mistral-conversations",
  "azure-openai-responses",
] as const;

const positive = (defaultValue: number) => Type.Optional(Type.Integer({ exclusiveMinimum: 0, default: defaultValue, problem: "must be a positive integer" }));
const price = Type.Optional(Type.Number({ minimum: 0 }));

/** The file itself: only `providers` is read, each provider on its own. */
export const ModelsFileShape = Type.Object({ providers: Type.Record(Type.String(), Type.Unknown()) }, { problem: 'expected {"providers": {...}}' });

/** One provider; its `models` are checked one by one with `CustomModelEntry`. */
export const CustomProviderEntry = Type.Object(
  {
    baseUrl: Type.String({ pattern: "^https?://", problem: "must be an http(s) URL" }),
    api: Type.Optional(
      Type.Union(
        MODEL_APIS.map((api) => Type.Literal(api)),
        { default: "openai-completions", problem: `must be one of ${MODEL_APIS.join(", ")}` },
      ),
    ),
    apiKey: Type.Optional(Type.String({ problem: "must be a string", description: "The key, or the name of the environment variable holding it." })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String(), { problem: "must map names to strings" })),
    models: Type.Array(Type.Unknown(), { problem: "must be an array" }),
  },
  { problem: "must be an object" },
);
export type CustomProviderEntry = Static<typeof CustomProviderEntry>;

export const CustomModelEntry = Type.Object(
  {
    id: Type.String({ minLength: 1, problem: "must be a non-empty string" }),
    name: Type.Optional(Type.Unknown({ description: "Shown instead of the id when it is a non-empty string." })),
    contextWindow: positive(128_000),
    maxTokens: positive(16_384),
    cost: Type.Optional(
      Type.Object(
        { input: price, output: price, cacheRead: price, cacheWrite: price },
        { problem: "must be an object of non-negative prices per million tokens", description: "Dollars per million tokens; a missing price is 0." },
      ),
    ),
    input: Type.Optional(
      Type.Array(Type.Union([Type.Literal("text"), Type.Literal("image")]), { default: ["text"], problem: 'must list "text" and optionally "image"' }),
    ),
    reasoning: Type.Optional(Type.Boolean({ problem: "must be a boolean" })),
    compat: Type.Optional(Type.Unknown({ description: "pi-ai's compatibility switches, passed on when an object." })),
  },
  // The id is what names the model in every other message, so a model that is not even an object is told about its id.
  { problem: ".id must be a non-empty string" },
);
export type CustomModelEntry = Static<typeof CustomModelEntry>;
