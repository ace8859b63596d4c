/**
 * A small JSON Schema validator for the subset the protocol table produces.
 * It runs in the server instead of TypeBox's compiler, which takes a quarter
 * of a second to import. Unknown keywords are refused when a schema is
 * compiled, so a schema feature this file does not implement can never be
 * silently ignored (a validator that skips a rule fails open).
 */

export interface SchemaIssue {
  /** Where the bad value sits, as a path of keys and indexes from the root value. */
  path: (string | number)[];
  message: string;
}

export type Schema = boolean | { [keyword: string]: unknown };
type Check = (value: unknown, path: (string | number)[]) => SchemaIssue | undefined;

const ANNOTATIONS = new Set([
  ...["description", "title", "default", "examples", "$comment", "$schema", "$id", "$defs", "errors", "result", "params"],
  // The words a config file's schema carries for its messages and docs (words.ts, problems.ts).
  ...["expected", "problem", "problems", "unknownKey", "missingKey", "ofParent"],
]);
const KEYWORDS = new Set([
  "$ref",
  "type",
  "const",
  "enum",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "items",
  "additionalItems",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "minProperties",
  "maxProperties",
]);

const MAX_NAME_IN_MESSAGE = 64;

function describeKey(key: string): string {
  const shown = key.length > MAX_NAME_IN_MESSAGE ? `${key.slice(0, MAX_NAME_IN_MESSAGE)}...` : key;
  return JSON.stringify(shown);
}

export function formatPath(root: string, path: readonly (string | number)[]): string {
  let out = root;
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(part) && part.length <= MAX_NAME_IN_MESSAGE) out += `.${part}`;
    else out += `[${describeKey(part)}]`;
  }
  return out;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "boolean":
      return typeof value === "boolean";
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "array":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    default:
      throw new Error(`unsupported schema type ${type}`);
  }
}

const ARTICLE: Record<string, string> = {
  null: "null",
  boolean: "a boolean",
  string: "a string",
  number: "a number",
  integer: "an integer",
  array: "an array",
  object: "an object",
};

function codePointLength(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    length++;
  }
  return length;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function issue(path: (string | number)[], message: string): SchemaIssue {
  return { path: [...path], message };
}

function showValue(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > MAX_NAME_IN_MESSAGE ? `${text.slice(0, MAX_NAME_IN_MESSAGE)}...` : text;
}

/** Compiles schemas that may `$ref` into one root document. */
export class SchemaCompiler {
  private readonly cache = new Map<object, Check>();

  constructor(private readonly root: object) {}

  compile(schema: Schema): Check {
    if (schema === true) return () => undefined;
    if (schema === false) return (_value, path) => issue(path, "is not allowed");
    const cached = this.cache.get(schema);
    if (cached) return cached;
    // A placeholder lets recursive references resolve while compiling.
    let compiled: Check | undefined;
    const lazy: Check = (value, path) => compiled!(value, path);
    this.cache.set(schema, lazy);
    compiled = this.build(schema);
    this.cache.set(schema, compiled);
    return compiled;
  }

  private resolve(ref: string): Schema {
    if (!ref.startsWith("#")) throw new Error(`unsupported $ref ${ref}`);
    let node: unknown = this.root;
    for (const raw of ref.slice(1).split("/").slice(1)) {
      const part = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
      if (node === null || typeof node !== "object" || !Object.hasOwn(node, part)) throw new Error(`unresolved $ref ${ref}`);
      node = (node as Record<string, unknown>)[part];
    }
    return node as Schema;
  }

  private build(schema: { [keyword: string]: unknown }): Check {
    for (const key of Object.keys(schema)) {
      if (!KEYWORDS.has(key) && !ANNOTATIONS.has(key)) throw new Error(`unsupported schema keyword ${key}`);
    }
    const checks: Check[] = [];
    if (typeof schema.$ref === "string") checks.push(this.compile(this.resolve(schema.$ref)));
    if (schema.type !== undefined) checks.push(typeCheck(schema.type as string | string[]));
    if ("const" in schema) {
      const expected = schema.const;
      checks.push((value, path) => (deepEqual(value, expected) ? undefined : issue(path, `must be ${showValue(expected)}`)));
    }
    if (Array.isArray(schema.enum)) {
      const options = schema.enum as unknown[];
      checks.push((value, path) =>
        options.some((option) => deepEqual(value, option)) ? undefined : issue(path, `must be one of ${options.map(showValue).join(", ")}`),
      );
    }
    checks.push(...this.stringChecks(schema), ...this.numberChecks(schema), ...this.arrayChecks(schema), ...this.objectChecks(schema));
    checks.push(...this.combinators(schema));
    if (checks.length === 1) return checks[0]!;
    return (value, path) => {
      for (const check of checks) {
        const found = check(value, path);
        if (found) return found;
      }
      return undefined;
    };
  }

  private stringChecks(schema: { [keyword: string]: unknown }): Check[] {
    const checks: Check[] = [];
    const { minLength, maxLength, pattern } = schema as { minLength?: number; maxLength?: number; pattern?: string };
    if (minLength !== undefined || maxLength !== undefined) {
      checks.push((value, path) => {
        if (typeof value !== "string") return undefined;
        // Code points never outnumber UTF-16 units, nor fall below half of them.
        if (minLength !== undefined && value.length < 2 * minLength && codePointLength(value) < minLength) {
          return issue(path, `must be at least ${minLength} characters`);
        }
        if (maxLength !== undefined && value.length > maxLength && codePointLength(value) > maxLength) {
          return issue(path, `must be at most ${maxLength} characters`);
        }
        return undefined;
      });
    }
    if (pattern !== undefined) {
      const regex = new RegExp(pattern, "u");
      checks.push((value, path) => (typeof value !== "string" || regex.test(value) ? undefined : issue(path, `must match ${pattern}`)));
    }
    return checks;
  }

  private numberChecks(schema: { [keyword: string]: unknown }): Check[] {
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema as Record<string, number | undefined>;
    if (minimum === undefined && maximum === undefined && exclusiveMinimum === undefined && exclusiveMaximum === undefined) return [];
    return [
      (value, path) => {
        if (typeof value !== "number") return undefined;
        if (minimum !== undefined && value < minimum) return issue(path, `must be at least ${minimum}`);
        if (maximum !== undefined && value > maximum) return issue(path, `must be at most ${maximum}`);
        if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) return issue(path, `must be greater than ${exclusiveMinimum}`);
        if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) return issue(path, `must be less than ${exclusiveMaximum}`);
        return undefined;
      },
    ];
  }

  private arrayChecks(schema: { [keyword: string]: unknown }): Check[] {
    const checks: Check[] = [];
    const { minItems, maxItems } = schema as { minItems?: number; maxItems?: number };
    if (minItems !== undefined || maxItems !== undefined) {
      checks.push((value, path) => {
        if (!Array.isArray(value)) return undefined;
        if (minItems !== undefined && value.length < minItems) return issue(path, `must have at least ${minItems} items`);
        if (maxItems !== undefined && value.length > maxItems) return issue(path, `must have at most ${maxItems} items`);
        return undefined;
      });
    }
    if (Array.isArray(schema.items)) {
      const tuple = schema.items.map((item) => this.compile(item as Schema));
      const rest = schema.additionalItems === undefined ? undefined : this.compile(schema.additionalItems as Schema);
      checks.push((value, path) => {
        if (!Array.isArray(value)) return undefined;
        for (let i = 0; i < value.length; i++) {
          const check = i < tuple.length ? tuple[i] : rest;
          const found = check?.(value[i], [...path, i]);
          if (found) return found;
        }
        return undefined;
      });
    } else if (schema.items !== undefined) {
      const item = this.compile(schema.items as Schema);
      checks.push((value, path) => {
        if (!Array.isArray(value)) return undefined;
        for (let i = 0; i < value.length; i++) {
          path.push(i);
          const found = item(value[i], path);
          path.pop();
          if (found) return found;
        }
        return undefined;
      });
    }
    return checks;
  }

  private objectChecks(schema: { [keyword: string]: unknown }): Check[] {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = (schema.required ?? []) as string[];
    const patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, Schema>).map(
      ([pattern, sub]) => [new RegExp(pattern, "u"), this.compile(sub)] as const,
    );
    const hasObjectRules =
      schema.properties !== undefined ||
      schema.required !== undefined ||
      schema.additionalProperties !== undefined ||
      schema.patternProperties !== undefined ||
      schema.minProperties !== undefined ||
      schema.maxProperties !== undefined;
    if (!hasObjectRules) return [];
    const known = new Map(Object.entries(properties).map(([name, sub]) => [name, this.compile(sub)]));
    const additional = schema.additionalProperties === undefined ? undefined : this.compile(schema.additionalProperties as Schema);
    const closed = schema.additionalProperties === false;
    const { minProperties, maxProperties } = schema as { minProperties?: number; maxProperties?: number };
    return [
      (value, path) => {
        if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
        const record = value as Record<string, unknown>;
        for (const name of required) {
          if (!Object.hasOwn(record, name)) return issue([...path, name], "is required");
        }
        const keys = Object.keys(record);
        if (minProperties !== undefined && keys.length < minProperties) return issue(path, `must have at least ${minProperties} fields`);
        if (maxProperties !== undefined && keys.length > maxProperties) return issue(path, `must have at most ${maxProperties} fields`);
        for (const key of keys) {
          const own = known.get(key);
          let matched = own !== undefined && Object.hasOwn(properties, key);
          path.push(key);
          try {
            if (matched) {
              const found = own!(record[key], path);
              if (found) return found;
            }
            for (const [regex, check] of patterns) {
              if (!regex.test(key)) continue;
              matched = true;
              const found = check(record[key], path);
              if (found) return found;
            }
            if (!matched && additional) {
              if (closed) return issue(path.slice(0, -1), `has an unknown field ${describeKey(key)}`);
              const found = additional(record[key], path);
              if (found) return found;
            }
          } finally {
            path.pop();
          }
        }
        return undefined;
      },
    ];
  }

  private combinators(schema: { [keyword: string]: unknown }): Check[] {
    const checks: Check[] = [];
    if (Array.isArray(schema.allOf)) {
      const all = schema.allOf.map((s) => this.compile(s as Schema));
      checks.push((value, path) => {
        for (const check of all) {
          const found = check(value, path);
          if (found) return found;
        }
        return undefined;
      });
    }
    if (Array.isArray(schema.anyOf)) checks.push(this.union(schema.anyOf as Schema[], false));
    if (Array.isArray(schema.oneOf)) checks.push(this.union(schema.oneOf as Schema[], true));
    if (schema.not !== undefined) {
      const not = this.compile(schema.not as Schema);
      checks.push((value, path) => (not(value, path) ? undefined : issue(path, "is not allowed")));
    }
    return checks;
  }

  private union(branches: Schema[], exactlyOne: boolean): Check {
    const compiled = branches.map((b) => this.compile(b));
    const literals = branches.every((b) => typeof b === "object" && "const" in b) ? branches.map((b) => (b as { const: unknown }).const) : undefined;
    return (value, path) => {
      const issues: SchemaIssue[] = [];
      let matches = 0;
      for (const check of compiled) {
        const found = check(value, [...path]);
        if (found) issues.push(found);
        else if (!exactlyOne) return undefined;
        else matches++;
      }
      if (matches === 1) return undefined;
      if (matches > 1) return issue(path, "matches more than one allowed form");
      if (literals) return issue(path, `must be one of ${literals.map(showValue).join(", ")}`);
      // Report the branch that got furthest into the value: its complaint is the useful one.
      const deepest = issues.reduce((best, next) => (next.path.length > best.path.length ? next : best));
      if (deepest.path.length > path.length) return deepest;
      return issue(path, `must be ${describeForms(branches)}`);
    };
  }
}

function describeForms(branches: Schema[]): string {
  const types = new Set<string>();
  for (const branch of branches) {
    if (typeof branch !== "object") return "a value of an allowed form";
    if (typeof branch.type === "string") types.add(branch.type);
    else return "a value of an allowed form";
  }
  return [...types].map((t) => ARTICLE[t] ?? t).join(" or ");
}

function typeCheck(type: string | string[]): Check {
  const types = Array.isArray(type) ? type : [type];
  for (const t of types) matchesType(null, t);
  const label = types.map((t) => ARTICLE[t] ?? t).join(" or ");
  return (value, path) => {
    if (types.some((t) => matchesType(value, t))) return undefined;
    return issue(path, `must be ${label}, not ${typeOf(value) === "integer" ? "a number" : (ARTICLE[typeOf(value)] ?? typeOf(value))}`);
  };
}
