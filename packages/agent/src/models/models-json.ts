import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Api, AssistantMessageEvent, Context, Model, SimpleStreamOptions } from "@mariozechner/pi-ai";
import { CustomModelEntry, CustomProviderEntry, ModelsFileShape } from "@knightcode/schema/models-file";
import { checker } from "@knightcode/schema/problems";
import { parseJsonText } from "@knightcode/system/fs/json-text";

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

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

const fileShape = checker(ModelsFileShape);
const providerEntry = checker(CustomProviderEntry);
const modelEntry = checker(CustomModelEntry);

function parseModel(raw: unknown, provider: Omit<CustomProvider, "models">, where: string, warn: (message: string) => void): Model<Api> | undefined {
  const read = modelEntry.read(raw, where);
  if (!read.ok) return (warn(read.problem), undefined);
  const model = read.value;
  const price = model.cost ?? {};
  return {
    id: model.id,
    name: typeof model.name === "string" && model.name !== "" ? model.name : model.id,
    api: provider.api,
    provider: provider.name,
    baseUrl: provider.baseUrl,
    reasoning: model.reasoning === true,
    input: model.input ?? ["text"],
    cost: { input: price.input ?? 0, output: price.output ?? 0, cacheRead: price.cacheRead ?? 0, cacheWrite: price.cacheWrite ?? 0 },
    contextWindow: model.contextWindow ?? 128_000,
    maxTokens: model.maxTokens ?? 16_384,
    ...(provider.headers ? { headers: provider.headers } : {}),
    ...(isObject(model.compat) ? { compat: model.compat as never } : {}),
  };
}

function parseProvider(name: string, raw: unknown, env: NodeJS.ProcessEnv, warn: (message: string) => void): CustomProvider | undefined {
  const where = `providers.${name}`;
  const read = providerEntry.read(raw, where);
  if (!read.ok) return (warn(read.problem), undefined);
  const entry = read.value;
  const configuredKey = entry.apiKey;
  const provider: Omit<CustomProvider, "models"> = {
    name,
    baseUrl: entry.baseUrl.replace(/\/+$/, ""),
    api: (entry.api ?? "openai-completions") as Api,
    ...(configuredKey !== undefined ? { apiKey: env[configuredKey] ?? configuredKey } : {}),
    ...(configuredKey !== undefined && env[configuredKey] !== undefined ? { apiKeyEnv: configuredKey } : {}),
    ...(entry.headers ? { headers: entry.headers } : {}),
  };
  const models = entry.models
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
  const shape = fileShape.read(parsed.value);
  if (!shape.ok) {
    warn(shape.problem);
    return { providers: [], warnings };
  }
  const providers = Object.entries(shape.value.providers)
    .map(([name, raw]) => parseProvider(name, raw, env, warn))
    .filter((provider): provider is CustomProvider => provider !== undefined);
  return { providers, warnings };
}
