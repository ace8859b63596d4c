import { PROVIDER_KEY_ENV_NAMES } from "./key-env-names.js";

/** The variable the app server's WebSocket token may come from. */
export const SERVER_TOKEN_ENV = "KNIGHTCODE_APP_SERVER_TOKEN";

/** Secrets the server holds for itself, whatever their variable's name. */
export interface ServerSecrets {
  /** Values no child process may receive in any variable: the WebSocket token. */
  readonly values: readonly string[];
  /** Files read, grep, find and ls refuse like the credential files: the `--listen-token-file`. */
  readonly files: readonly string[];
}

export interface ChildEnvOptions {
  /** More names to withhold: those the model registry reads keys from (models.json, extensions' providers). */
  withholdNames?: Iterable<string>;
  /** Values to withhold in whatever variable they are. */
  withholdValues?: Iterable<string>;
  /** Names passed on although withheld by the rules above (the `shellEnv.passThrough` setting). */
  passThrough?: readonly string[];
}

/** Names compared as Windows compares them, and as a careless `export openai_api_key` would be meant. */
const key = (name: string): string => name.toUpperCase();

const ALWAYS_WITHHELD = new Set([SERVER_TOKEN_ENV, ...PROVIDER_KEY_ENV_NAMES].map(key));

/**
 * Whether a variable of this name holds a provider key or the server's
 * token by its name alone: the token's variable, the variables providers
 * read their keys from, and any `*_API_KEY`.
 */
export function isWithheldEnvName(name: string): boolean {
  const upper = key(name);
  return ALWAYS_WITHHELD.has(upper) || upper.endsWith("_API_KEY");
}

/**
 * The environment of every program the server starts for a thread (bash
 * commands, rg and fd, extensions' `exec`): the server's own, without the
 * server's WebSocket token and the model providers' keys. Those are the
 * server's to use; a child that had them would hand them to a model that
 * asks for them (`env`, `echo $OPENAI_API_KEY`, `/proc/self/environ`). A
 * name in `passThrough` is passed on all the same: the user chose to.
 */
export function childEnvironment(base: NodeJS.ProcessEnv, options: ChildEnvOptions = {}): NodeJS.ProcessEnv {
  const names = new Set([...(options.withholdNames ?? [])].map(key));
  const values = new Set([...(options.withholdValues ?? [])].filter((value) => value !== ""));
  const passed = new Set((options.passThrough ?? []).map(key));
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const upper = key(name);
    if (!passed.has(upper) && (isWithheldEnvName(name) || names.has(upper) || values.has(value))) continue;
    env[name] = value;
  }
  return env;
}
