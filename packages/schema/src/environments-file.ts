// .knightcode/environments.json: `{"environments": [...]}`, strictly: a file
// that breaks a rule is refused whole, never half read.
import { Type } from "typebox";
import { Environment, EnvironmentScripts, Script } from "./environments.js";

export const MAX_ENVIRONMENTS = 50;
export const SCRIPT_PLATFORMS = ["linux", "darwin", "win32"] as const;

const script = { ...Script, problem: "must be a non-empty string" };

/** The wire's scripts record with the words a file's problems are told in. */
const Scripts = Type.Object(
  { default: script, linux: Type.Optional(script), darwin: Type.Optional(script), win32: Type.Optional(script) },
  {
    additionalProperties: false,
    problem: 'must be an object with a "default" script',
    unknownKey: `has the unknown key {key} (scripts are "default", ${SCRIPT_PLATFORMS.map((p) => `"${p}"`).join(", ")})`,
    missingKey: 'needs a "default" script',
  },
);

const name = Environment.properties.name;

export const EnvironmentEntry = Type.Object(
  {
    name: {
      ...name,
      problem: "must be a non-empty string",
      problems: {
        maxLength: `is longer than ${(name as { maxLength?: number }).maxLength} characters`,
        pattern: "{value} may not hold control characters or start or end with whitespace",
      },
    },
    setup: Scripts,
    cleanup: Type.Optional(Scripts),
  },
  { additionalProperties: false, problem: "must be an object", unknownKey: 'has the unknown key {key} (an environment has "name", "setup" and "cleanup")' },
);

export const EnvironmentList = Type.Array(EnvironmentEntry, {
  maxItems: MAX_ENVIRONMENTS,
  problem: "must be a list",
  problems: { maxItems: `holds {length} environments; at most ${MAX_ENVIRONMENTS} are allowed` },
});

/** The file around the list: nothing may sit beside it. */
export const EnvironmentsFileShape = Type.Object(
  { environments: Type.Optional(Type.Unknown()) },
  { additionalProperties: false, problem: "must hold a JSON object", unknownKey: 'has the unknown key {key} beside "environments"' },
);

export { EnvironmentScripts };
