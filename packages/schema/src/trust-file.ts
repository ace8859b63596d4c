// trust.json: the user's decision for each project folder, kept by the server.
import { type Static, Type } from "typebox";

export const TRUST_FILE_VERSION = 1;

/** One decision; anything else under a folder counts as undecided, with a warning. */
export const TrustDecisionEntry = Type.Object({
  trusted: Type.Boolean(),
  decidedAt: Type.Optional(Type.String({ description: "ISO 8601 time." })),
});
export type TrustDecisionEntry = Static<typeof TrustDecisionEntry>;

/** The file as a whole; its entries are checked one by one with `TrustDecisionEntry`. */
export const TrustFileShape = Type.Object(
  {
    version: Type.Optional(Type.Literal(TRUST_FILE_VERSION, { ofParent: true, problem: "has version {value}, which this KnightCode does not know" })),
    projects: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { ofParent: true, problem: 'must hold "projects" as an object' })),
  },
  { problem: "must hold a JSON object" },
);
export type TrustFileShape = Static<typeof TrustFileShape>;
