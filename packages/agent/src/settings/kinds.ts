/** What values a known setting accepts: a type guard plus the words for messages and docs. */
export interface Kind<T> {
  readonly description: string;
  check(value: unknown): value is T;
}

function kind<T>(description: string, check: (value: unknown) => boolean): Kind<T> {
  return { description, check: check as (value: unknown) => value is T };
}

const isText = (value: unknown): value is string => typeof value === "string" && value.length > 0;

export const text = kind<string>("a non-empty string", isText);

export const bool = kind<boolean>("true or false", (value) => typeof value === "boolean");

export const count = kind<number>("an integer >= 0", (value) => Number.isSafeInteger(value) && (value as number) >= 0);

export function nullable<T>(inner: Kind<T>): Kind<T | null> {
  return kind(`${inner.description} or null`, (value) => value === null || inner.check(value));
}

export function oneOf<const V extends string>(values: readonly V[]): Kind<V> {
  return kind(`one of ${values.map((v) => JSON.stringify(v)).join(", ")}`, (value) => values.includes(value as V));
}

/** Characters git refuses in branch names, plus whitespace; a prefix may be empty. */
export const branchPrefix = kind<string>(
  "a string usable at the start of a git branch name",
  (value) => typeof value === "string" && !/[\s~^:?*[\\]|\.\.|@\{/.test(value) && !value.startsWith("-"),
);

/** `name`, `+name` or `-name`, where the name has no whitespace. */
const isToolPattern = (value: unknown): boolean => typeof value === "string" && /^[+-]?[^\s+-]\S*$/.test(value);

/** A path, or `+path` / `-path` to force a resource on or off. */
const isPathPattern = (value: unknown): boolean => typeof value === "string" && /^[+-]?[^+-]/.test(value) && !value.includes("\0");

export const toolPatterns = kind<string[]>(
  'an array of tool names, each optionally prefixed with "+" or "-"',
  (value) => Array.isArray(value) && value.every(isToolPattern),
);

export const pathPatterns = kind<string[]>(
  'an array of paths, each optionally prefixed with "+" or "-"',
  (value) => Array.isArray(value) && value.every(isPathPattern),
);

/** An environment variable's name, as a POSIX shell accepts it. */
const isEnvName = (value: unknown): boolean => typeof value === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(value);

export const envNames = kind<string[]>("an array of environment variable names", (value) => Array.isArray(value) && value.every(isEnvName));
