// The building blocks every other shape uses: closed objects, the warning record, the two settings scopes.
import { type Static, Type } from "typebox";

/**
 * Objects the server sends are closed (`additionalProperties: false`) so a
 * test that validates every message catches a field the schema forgot.
 */
export const Closed = { additionalProperties: false } as const;

export const Warning = Type.Object(
  {
    message: Type.String(),
    source: Type.Union([Type.Literal("settings"), Type.Literal("extension"), Type.Literal("trust"), Type.Literal("server"), Type.Literal("models")]),
    path: Type.Optional(Type.String()),
    // One-based.
    line: Type.Optional(Type.Integer({ minimum: 1 })),
    // One-based, in UTF-16 code units as most editors count.
    column: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { ...Closed, $id: "Warning", description: "Something the user should see that did not stop the work." },
);
export type Warning = Static<typeof Warning>;

export const SettingsScope = Type.Union([Type.Literal("global"), Type.Literal("project")]);
export type SettingsScope = Static<typeof SettingsScope>;
