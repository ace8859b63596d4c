import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Api, AssistantMessageEvent, Context, Model, SimpleStreamOptions } from "@mariozechner/pi-ai";
import { parseJsonText } from "../fs/json-text.js";

export interface ModelsFileWarning {
  message: string;
  path: string;
  line?: number;
  column?: number;
}

export interface CustomProvider {
  name: string;
  baseUrl: string;
  api: Api;
  /** The configured key, resolved: an environment variable's value when the setting names one, else the literal. */
  apiKey?: string;
  /** The environment variable the key came from, when it came from one: children never receive it. */
  apiKeyEnv?: string;
  headers?: Record<string, string>;
  models: Model<Api>[];
  /** An extension provider's own streaming, used instead of pi-ai's for its models. */
  stream?: ProviderStream;
}

/**
 * A provider's own stream function: pi-ai's assistant message events for
 * one request, ending with a `done` or an `error` event. Any async iterable
 * will do, so an extension need not import pi-ai to write one.
 */
export type ProviderStream = (
  model: Model<Api>,
  context: Context,
  options: SimpleStreamOptions,
) => AsyncIterable<AssistantMessageEvent> | Promise<AsyncIterable<AssistantMessageEvent>>;

export interface ModelsFile {
  providers: CustomProvider[];
  warnings: ModelsFileWarning[];
}

const KNOWN_APIS = new Set([
  "openai-completions", "openai-responses", "anthropic-messages", "google-generative-ai", "mistral-conversations", "azure-openai-responses",
]);

type Raw = Record<string, unknown>;

function isObject(value: unknown): value is Raw {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function positiveInt(value: unknown, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  return Number.isInteger(value) && (value as number) > 0 ? (value as number) : undefined;
}

function costOf(value: unknown): Model<Api>["cost"] | undefined {
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  if (value === undefined) return zero;
  if (!isObject(value)) return undefined;
  const cost = { ...zero };
  for (const key of Object.keys(zero) as (keyof typeof zero)[]) {
    const price = value[key];
    if (price === undefined) continue;
    if (typeof price !== "number" || !Number.isFinite(price) || price < 0) return undefined;
    cost[key] = price;
  }
  return cost;
}

function parseModel(raw: unknown, provider: Omit<CustomProvider, "models">, where: string, warn: (message: string) => void): Model<Api> | undefined {
  if (!isObject(raw) || typeof raw.id !== "string" || raw.id === "") {
    warn(`${where}.id must be a non-empty string`);
    return undefined;
  }
  const contextWindow = positiveInt(raw.contextWindow, 128_000);
  const maxTokens = positiveInt(raw.maxTokens, 16_384);
  const cost = costOf(raw.cost);
  const input = raw.input === undefined ? ["text"] : raw.input;
  if (contextWindow === undefined) return warn(`${where}.contextWindow must be a positive integer`), undefined;
  if (maxTokens === undefined) return warn(`${where}.maxTokens must be a positive integer`), undefined;
  if (cost === undefined) return warn(`${where}.cost must be an object of non-negative prices per million tokens`), undefined;
  if (!Array.isArray(input) || !input.every((kind) => kind === "text" || kind === "image")) {
    return warn(`${where}.input must list "text" and optionally "image"`), undefined;
  }
  if (raw.reasoning !== undefined && typeof raw.reasoning !== "boolean") return warn(`${where}.reasoning must be a boolean`), undefined;
  return {
    id: raw.id,
    name: typeof raw.name === "string" && raw.name !== "" ? raw.name : raw.id,
    api: provider.api,
    provider: provider.name,
    baseUrl: provider.baseUrl,
    reasoning: raw.reasoning === true,
    input: input as ("text" | "image")[],
    cost,
    contextWindow,
    maxTokens,
    ...(provider.headers ? { headers: provider.headers } : {}),
    ...(isObject(raw.compat) ? { compat: raw.compat as never } : {}),
  };
}

function parseProvider(name: string, raw: unknown, env: NodeJS.ProcessEnv, warn: (message: string) => void): CustomProvider | undefined {
  const where = `providers.${name}`;
  if (!isObject(raw)) return warn(`${where} must be an object`), undefined;
  if (typeof raw.baseUrl !== "string" || !/^https?:\/\//.test(raw.baseUrl)) return warn(`${where}.baseUrl must be an http(s) URL`), undefined;
  const api = raw.api ?? "openai-completions";
  if (typeof api !== "string" || !KNOWN_APIS.has(api)) return warn(`${where}.api must be one of ${[...KNOWN_APIS].join(", ")}`), undefined;
  if (raw.apiKey !== undefined && typeof raw.apiKey !== "string") return warn(`${where}.apiKey must be a string`), undefined;
  if (raw.headers !== undefined && (!isObject(raw.headers) || !Object.values(raw.headers).every((v) => typeof v === "string"))) {
    return warn(`${where}.headers must map names to strings`), undefined;
  }
  if (!Array.isArray(raw.models)) return warn(`${where}.models must be an array`), undefined;
  const configuredKey = raw.apiKey as string | undefined;
  const provider: Omit<CustomProvider, "models"> = {
    name,
    baseUrl: raw.baseUrl.replace(/\/+$/, ""),
    api: api as Api,
    ...(configuredKey !== undefined ? { apiKey: env[configuredKey] ?? configuredKey } : {}),
    ...(configuredKey !== undefined && env[configuredKey] !== undefined ? { apiKeyEnv: configuredKey } : {}),
    ...(raw.headers ? { headers: raw.headers as Record<string, string> } : {}),
  };
  const models = raw.models
    .map((model, index) => parseModel(model, provider, `${where}.models[${index}]`, warn))
    .filter((model): model is Model<Api> => model !== undefined);
  return { ...provider, models };
}

/**
 * Reads `<agentDir>/models.json`: custom OpenAI-compatible (and other API)
 * providers. A bad file or entry becomes a warning; what is valid still loads.
 */
export function readModelsFile(agentDir: string, env: NodeJS.ProcessEnv): ModelsFile {
  const path = join(agentDir, "models.json");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { providers: [], warnings: [] };
    return { providers: [], warnings: [{ path, message: `cannot read models.json: ${(error as Error).message}` }] };
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    const { message, line, column } = parsed.error;
    return { providers: [], warnings: [{ path, message: `models.json is not valid JSON: ${message}`, ...(line ? { line, column } : {}) }] };
  }
  const warnings: ModelsFileWarning[] = [];
  const warn = (message: string) => void warnings.push({ path, message: `models.json: ${message}` });
  if (!isObject(parsed.value) || !isObject(parsed.value.providers)) {
    warn('expected {"providers": {...}}');
    return { providers: [], warnings };
  }
  const providers = Object.entries(parsed.value.providers)
    .map(([name, raw]) => parseProvider(name, raw, env, warn))
    .filter((provider): provider is CustomProvider => provider !== undefined);
  return { providers, warnings };
}
