import { MAX_CLASSIFIER_INSTRUCTIONS, MAX_CLASSIFIER_TIMEOUT_MS } from "./tools-json.js";

/**
 * One setting of a managed entry: how a string from `tool/settings/write`
 * becomes what the file stores, and how the stored value is shown again.
 * `store` throws an Error whose message names what is wrong.
 */
export interface ManagedKey {
  store(value: string): unknown;
  /** The stored value as text, or undefined when the file holds something this key cannot show. */
  show(stored: unknown): string | undefined;
}

/** What `tool/settings` manages in tools.json: a tool of ours, or the classifier gate. */
export interface ManagedEntry {
  name: string;
  /** Where the entry sits in tools.json. */
  path: readonly [string, string];
  /** Its state while the file does not set `enabled`. */
  defaultEnabled: boolean;
  keys: Readonly<Record<string, ManagedKey>>;
}

export const WEBSEARCH_PROVIDERS = ["brave", "tavily"] as const;
export type WebSearchProvider = (typeof WEBSEARCH_PROVIDERS)[number];

const MAX_VALUE_LENGTH = 4096;

function text(options: { maxLength?: number } = {}): ManagedKey {
  const maxLength = options.maxLength ?? MAX_VALUE_LENGTH;
  return {
    store(value) {
      if (value.length > maxLength) throw new Error(`is longer than ${maxLength} characters`);
      return value;
    },
    show: (stored) => (typeof stored === "string" ? stored : undefined),
  };
}

/** An API key: one line of visible characters, so it cannot break the request it goes into. */
const secret: ManagedKey = {
  store(value) {
    if (value === "") throw new Error("must not be empty (null deletes it)");
    if (value.length > MAX_VALUE_LENGTH) throw new Error(`is longer than ${MAX_VALUE_LENGTH} characters`);
    if (/[\s\p{Cc}]/u.test(value)) throw new Error("must not contain spaces or control characters");
    return value;
  },
  show: (stored) => (typeof stored === "string" ? stored : undefined),
};

function oneOf(values: readonly string[]): ManagedKey {
  return {
    store(value) {
      if (!values.includes(value)) throw new Error(`must be one of ${values.join(", ")}`);
      return value;
    },
    show: (stored) => (typeof stored === "string" ? stored : undefined),
  };
}

const httpUrl: ManagedKey = {
  store(value) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new Error("must be an http or https URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("must be an http or https URL");
    if (url.username !== "" || url.password !== "") throw new Error("must not carry a user name or password; keys go in the provider's key setting");
    return value;
  },
  show: (stored) => (typeof stored === "string" ? stored : undefined),
};

/** The gate's model, `provider/id` on the wire and `{provider, id}` in the file, split at the first slash (ids may hold more). */
const modelRef: ManagedKey = {
  store(value) {
    const slash = value.indexOf("/");
    if (slash <= 0 || slash === value.length - 1) throw new Error('must be "<provider>/<model id>", as model/list names them');
    return { provider: value.slice(0, slash), id: value.slice(slash + 1) };
  },
  show(stored) {
    const ref = stored as { provider?: unknown; id?: unknown } | null;
    if (typeof ref !== "object" || ref === null || typeof ref.provider !== "string" || typeof ref.id !== "string") return undefined;
    return `${ref.provider}/${ref.id}`;
  },
};

/** Milliseconds, written as digits because every setting but `enabled` travels as text; the file keeps a number. */
const milliseconds: ManagedKey = {
  store(value) {
    const ms = /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
    if (!(ms >= 1 && ms <= MAX_CLASSIFIER_TIMEOUT_MS))
      throw new Error(`must be a whole number of milliseconds from 1 to ${MAX_CLASSIFIER_TIMEOUT_MS}, written as digits`);
    return ms;
  },
  show: (stored) => (typeof stored === "number" && Number.isInteger(stored) ? String(stored) : undefined),
};

export const WEBSEARCH: ManagedEntry = {
  name: "websearch",
  path: ["tools", "websearch"],
  // It sends the model's queries to a third party: off until the user switches it on.
  defaultEnabled: false,
  keys: { provider: oneOf(WEBSEARCH_PROVIDERS), braveKey: secret, tavilyKey: secret, baseUrl: httpUrl },
};

export const CLASSIFIER_GATE: ManagedEntry = {
  name: "classifiers.gate",
  path: ["classifiers", "gate"],
  defaultEnabled: false,
  keys: { model: modelRef, instructions: text({ maxLength: MAX_CLASSIFIER_INSTRUCTIONS }), timeoutMs: milliseconds },
};

/** Every entry `tool/settings` reads and writes, in the order it lists them. */
export const MANAGED_ENTRIES: readonly ManagedEntry[] = [WEBSEARCH, CLASSIFIER_GATE];

export function managedEntry(name: string): ManagedEntry | undefined {
  return MANAGED_ENTRIES.find((entry) => entry.name === name);
}

/** Keys whose values are secrets: shown masked, kept whole in the file. */
export function isSecretKey(key: string): boolean {
  return key.endsWith("Key");
}

const MASK = "••••";

/**
 * A secret as `tool/settings/read` shows it: four bullets, then its last
 * four characters. A secret of four characters or fewer shows none of
 * them. The bullets never vary, so the mask does not tell the length.
 */
export function maskSecret(value: string): string {
  const characters = Array.from(value);
  return characters.length <= 4 ? MASK : MASK + characters.slice(-4).join("");
}
