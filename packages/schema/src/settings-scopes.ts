// Plain data beside the settings schema, so the code that reads settings loads no TypeBox.

/**
 * Settings a repository must not be able to change for the user (what
 * contains its own commands): only the global file's value counts, and a
 * project's is ignored with a warning. A rule about where a value came
 * from, which a schema of the value cannot say.
 */
export const GLOBAL_ONLY_SETTINGS: ReadonlySet<string> = new Set([
  "sandbox.mode",
  "sandbox.network",
  "sandbox.required",
  "requests.holdSeconds",
  "subagents.maxRunning",
  "terminals.maxPerThread",
  "terminals.maxOutputBytes",
]);
