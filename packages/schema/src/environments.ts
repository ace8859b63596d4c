// A project's environments: what a new worktree runs.
import { type Static, Type } from "typebox";
import { Closed } from "./common.js";

/** Matches the rule the server applies: no control characters, no whitespace at either end. */
export const EnvironmentName = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: "^(?!\\s)(?!.*\\s$)[^\\u0000-\\u001f\\u007f]+$",
  description: "Unique in the list.",
});

export const Script = Type.String({ minLength: 1, maxLength: 65536, description: "A shell script of at most 65,536 UTF-8 bytes." });

export const EnvironmentScripts = Type.Object(
  {
    default: Script,
    linux: Type.Optional(Script),
    darwin: Type.Optional(Script),
    win32: Type.Optional(Script),
  },
  { ...Closed, $id: "EnvironmentScripts", description: "A platform's own script replaces default there." },
);
export type EnvironmentScripts = Static<typeof EnvironmentScripts>;

export const Environment = Type.Object(
  {
    name: EnvironmentName,
    setup: EnvironmentScripts,
    cleanup: Type.Optional(EnvironmentScripts),
  },
  { ...Closed, $id: "Environment", description: "What a new worktree of the project runs: setup once it exists, cleanup before it is deleted." },
);
export type Environment = Static<typeof Environment>;
