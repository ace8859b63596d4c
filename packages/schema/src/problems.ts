// The first place a value breaks a schema, in the words the config files'
// messages have always used. The words sit on the schema as annotations, so
// a rule and what a user is told about it are written once, side by side.
import type { Static, TSchema } from "typebox";
import { Compile } from "typebox/compile";
import { Value } from "typebox/value";

/**
 * Annotations a file's schema carries for its messages. In words, `{value}`
 * stands for the value as JSON, `{length}` for an array's length, `{key}`
 * for the key as JSON and `{shortKey}` for its first 64 characters as JSON.
 * Words that start with ".", "[" or ":" attach to the path without a space
 * (a message about a field inside the value).
 */
export interface ProblemWords {
  /** Said of the path when its value fails here: "must be a positive integer". */
  problem?: string;
  /** Said instead of `problem` when this keyword is the one that fails: `{ maxLength: "is longer than ..." }`. */
  problems?: Record<string, string>;
  /** For a closed object: said of an unknown key, before anything else is checked. */
  unknownKey?: string;
  /** For an object: said when a required key is missing. */
  missingKey?: string;
  /** The words are said of the object holding the value rather than of its key ("has version 2, ..."). */
  ofParent?: boolean;
}

interface Node extends ProblemWords {
  type?: string;
  properties?: Record<string, TSchema>;
  required?: string[];
  additionalProperties?: unknown;
  patternProperties?: Record<string, TSchema>;
  items?: TSchema;
  allOf?: TSchema[];
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

function say(path: string, words: string, fill: Record<string, string>): string {
  const text = words.replace(/\{(value|length|key|shortKey)\}/g, (_, name: string) => fill[name] ?? "");
  if (path === "") return text;
  return /^[.[:]/.test(text) ? `${path}${text}` : `${path} ${text}`;
}

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

function inObject(node: Node, value: Record<string, unknown>, path: string): string | undefined {
  const properties = node.properties ?? {};
  if (node.additionalProperties === false && node.unknownKey !== undefined) {
    const patterns = Object.keys(node.patternProperties ?? {}).map((pattern) => new RegExp(pattern, "u"));
    const known = (key: string) => Object.hasOwn(properties, key) || patterns.some((pattern) => pattern.test(key));
    const unknown = Object.keys(value).find((key) => !known(key));
    if (unknown !== undefined) return say(path, node.unknownKey, { key: JSON.stringify(unknown), shortKey: JSON.stringify(unknown.slice(0, 64)) });
  }
  for (const [key, child] of Object.entries(properties)) {
    if (Object.hasOwn(value, key)) {
      const found = problemAt(child, value[key], (child as Node).ofParent === true ? path : join(path, key));
      if (found !== undefined) return found;
    } else if (node.required?.includes(key)) {
      // A missing key is told what its value must be, unless the object has words for it.
      const found = node.missingKey === undefined ? problemAt(child, undefined, join(path, key)) : say(path, node.missingKey, { key: JSON.stringify(key) });
      if (found !== undefined) return found;
    }
  }
  const each = Object.values(node.patternProperties ?? {})[0];
  if (each === undefined) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = problemAt(each, item, join(path, key));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Every part must hold: the first that does not speaks, so one value can be told about each rule in turn. */
function inAll(parts: TSchema[], value: unknown, path: string): string | undefined {
  for (const part of parts) {
    const found = problemAt(part, value, path);
    if (found !== undefined) return found;
  }
  return undefined;
}

function inArray(node: Node, value: unknown[], path: string): string | undefined {
  if (node.items === undefined) return undefined;
  for (const [index, item] of value.entries()) {
    const found = problemAt(node.items, item, `${path}[${index}]`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The words of the node itself. A failing keyword without words of its own
 * (its type, an empty string) comes first, as `problem`; then the first of
 * `problems`, in their order, whose keyword fails.
 */
function ownWords(node: Node, value: unknown): string | undefined {
  if (node.problems === undefined) return node.problem;
  const failing = new Set<string>();
  for (const error of Value.Errors(node as TSchema, value)) if (error.instancePath === "") failing.add(error.keyword);
  if ([...failing].some((keyword) => !Object.hasOwn(node.problems!, keyword))) return node.problem;
  return Object.entries(node.problems).find(([keyword]) => failing.has(keyword))?.[1] ?? node.problem;
}

function problemAt(schema: TSchema, value: unknown, path: string): string | undefined {
  if (Value.Check(schema, value)) return undefined;
  const node = schema as Node;
  const inner =
    node.allOf !== undefined
      ? inAll(node.allOf, value, path)
      : node.type === "object" && isPlainObject(value)
        ? inObject(node, value, path)
        : node.type === "array" && Array.isArray(value)
          ? inArray(node, value, path)
          : undefined;
  if (inner !== undefined) return inner;
  const words = ownWords(node, value);
  if (words === undefined) return undefined;
  return say(path, words, { value: JSON.stringify(value) ?? "", length: Array.isArray(value) ? String((value as unknown[]).length) : "" });
}

/** A schema's check, compiled on first use, and its first problem in words. */
export interface Checker<S extends TSchema> {
  check(value: unknown): value is Static<S>;
  /** Undefined for a good value; else the first problem, said of `path` ("" for the value itself). */
  problem(value: unknown, path?: string): string | undefined;
  /** The value, typed, when it is good; else its first problem. */
  read(value: unknown, path?: string): { ok: true; value: Static<S> } | { ok: false; problem: string };
}

export function checker<S extends TSchema>(schema: S): Checker<S> {
  let validator: { Check(value: unknown): boolean } | undefined;
  const check = (value: unknown): value is Static<S> => (validator ??= Compile(schema)).Check(value);
  const problem = (value: unknown, path = "") => (check(value) ? undefined : (problemAt(schema, value, path) ?? say(path, "is not valid", {})));
  return {
    check,
    problem,
    read: (value, path = "") => {
      const found = problem(value, path);
      return found === undefined ? { ok: true, value: value as Static<S> } : { ok: false, problem: found };
    },
  };
}
