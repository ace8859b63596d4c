// Shapes of a thread the protocol sends and the agent keeps: models, thinking, approvals, usage, failures.
import { type Static, Type } from "typebox";
import { Closed } from "./common.js";

export const ThinkingLevel = Type.Union(
  [Type.Literal("off"), Type.Literal("minimal"), Type.Literal("low"), Type.Literal("medium"), Type.Literal("high"), Type.Literal("xhigh")],
  { $id: "ThinkingLevel", description: "How hard the model thinks; off for a model without reasoning." },
);
export type ThinkingLevel = Static<typeof ThinkingLevel>;

export const ApprovalMode = Type.Union([Type.Literal("ask"), Type.Literal("autoEdit"), Type.Literal("fullAccess")], {
  $id: "ApprovalMode",
  description: "ask: tool calls that change things wait for approval; autoEdit: file edits run without asking; fullAccess: nothing asks.",
});
export type ApprovalMode = Static<typeof ApprovalMode>;

export const ModelRef = Type.Object(
  { provider: Type.String({ minLength: 1 }), id: Type.String({ minLength: 1 }) },
  { ...Closed, $id: "ModelRef", description: "A model by provider and id, as model/list shows them." },
);
export type ModelRef = Static<typeof ModelRef>;

export const TurnError = Type.Object(
  {
    message: Type.String({ description: "At most 2,000 characters in summaries; full payloads keep it whole." }),
    kind: Type.Union([
      Type.Literal("auth"),
      Type.Literal("rateLimit"),
      Type.Literal("contextOverflow"),
      Type.Literal("network"),
      Type.Literal("provider"),
      Type.Literal("other"),
    ]),
  },
  { ...Closed, $id: "TurnError", description: "Why a turn failed." },
);
export type TurnError = Static<typeof TurnError>;

export const FileTotals = Type.Object(
  { path: Type.String(), additions: Type.Integer({ minimum: 0 }), deletions: Type.Integer({ minimum: 0 }) },
  { ...Closed, $id: "FileTotals", description: "Lines added and deleted in one file." },
);
export type FileTotals = Static<typeof FileTotals>;

/** Token counts and cost without the context figures: what sums across threads. */
const UsageSum = Type.Object(
  {
    input: Type.Integer({ minimum: 0 }),
    output: Type.Integer({ minimum: 0 }),
    cacheRead: Type.Integer({ minimum: 0 }),
    cacheWrite: Type.Integer({ minimum: 0 }),
    cost: Type.Number({ minimum: 0, description: "Dollars, cumulative." }),
  },
  { ...Closed, description: "Token counts and cost summed over threads." },
);
export type UsageSum = Static<typeof UsageSum>;

export const TokenUsage = Type.Object(
  {
    input: Type.Integer({ minimum: 0 }),
    output: Type.Integer({ minimum: 0 }),
    cacheRead: Type.Integer({ minimum: 0 }),
    cacheWrite: Type.Integer({ minimum: 0 }),
    cost: Type.Number({ minimum: 0, description: "Dollars, cumulative." }),
    contextTokens: Type.Optional(Type.Integer({ minimum: 0, description: "Absent when the current context is unknown." })),
    contextWindow: Type.Integer({ minimum: 0 }),
    subagents: Type.Optional({
      ...UsageSum,
      description: "Only for a thread whose model started sub-agents: theirs, summed (the figures above are the thread's own).",
    }),
    total: Type.Optional({ ...UsageSum, description: "Only with subagents: the thread's own and its sub-agents', summed." }),
  },
  { ...Closed, $id: "TokenUsage", description: "The thread's token counts and cost so far, and how full its context is." },
);
export type TokenUsage = Static<typeof TokenUsage>;

export const ModelSummary = Type.Object(
  {
    provider: Type.String(),
    id: Type.String(),
    name: Type.String(),
    reasoning: Type.Boolean(),
    thinkingLevels: Type.Array(ThinkingLevel, { minItems: 1 }),
    contextWindow: Type.Integer({ minimum: 0 }),
    maxTokens: Type.Integer({ minimum: 0 }),
    input: Type.Array(Type.Union([Type.Literal("text"), Type.Literal("image")])),
    cost: Type.Object(
      {
        input: Type.Number({ minimum: 0 }),
        output: Type.Number({ minimum: 0 }),
        cacheRead: Type.Number({ minimum: 0 }),
        cacheWrite: Type.Number({ minimum: 0 }),
      },
      { ...Closed, description: "Dollars per million tokens." },
    ),
    available: Type.Boolean({ description: "A credential for the provider is present." }),
    unavailableReason: Type.Optional(
      Type.Object(
        {
          kind: Type.Union([Type.Literal("noCredentials"), Type.Literal("authFileError")], {
            description: "noCredentials: no key for the provider anywhere the server looks; authFileError: auth.json cannot be read.",
          }),
          message: Type.String({ description: "What to set or fix (an environment variable, auth.json, models.json); never a key." }),
        },
        { ...Closed, description: "Why the model is not available; absent when it is." },
      ),
    ),
    source: Type.Union([Type.Literal("builtin"), Type.Literal("custom"), Type.Literal("extension")]),
  },
  { ...Closed, $id: "ModelSummary", description: "A model the server knows, with what it can do and what it costs." },
);
export type ModelSummary = Static<typeof ModelSummary>;
