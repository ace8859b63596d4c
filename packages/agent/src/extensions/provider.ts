import type { Api, Model } from "@mariozechner/pi-ai";
import type { CustomProvider } from "../models/models-json.js";
import type { ProviderDefinition } from "./types.js";

/**
 * Turns an extension's provider definition into a registry provider. An
 * `apiKey` of the form `$NAME` names an environment variable; a
 * `streamSimple` streams its models instead of pi-ai's provider for `api`.
 */
export function providerFromDefinition(name: string, definition: ProviderDefinition, env: NodeJS.ProcessEnv): CustomProvider {
  if (!/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$/.test(name)) throw new Error(`invalid provider name ${JSON.stringify(name)}`);
  if (typeof definition?.baseUrl !== "string" || !/^https?:\/\//.test(definition.baseUrl)) {
    throw new Error(`provider ${name} needs an http(s) baseUrl`);
  }
  if (!Array.isArray(definition.models) || definition.models.length === 0) throw new Error(`provider ${name} lists no models`);
  if (definition.streamSimple !== undefined && typeof definition.streamSimple !== "function")
    throw new Error(`provider ${name} has a streamSimple that is not a function`);
  const api = (definition.api ?? "openai-completions") as Api;
  const baseUrl = definition.baseUrl.replace(/\/+$/, "");
  const rawKey = definition.apiKey;
  const apiKey = rawKey?.startsWith("$") ? env[rawKey.slice(1)] : rawKey;
  const models: Model<Api>[] = definition.models.map((m) => {
    if (typeof m?.id !== "string" || m.id === "") throw new Error(`provider ${name} has a model without an id`);
    return {
      id: m.id,
      name: m.name ?? m.id,
      api,
      provider: name,
      baseUrl,
      reasoning: m.reasoning === true,
      input: m.input ?? ["text"],
      cost: { input: m.cost?.input ?? 0, output: m.cost?.output ?? 0, cacheRead: m.cost?.cacheRead ?? 0, cacheWrite: m.cost?.cacheWrite ?? 0 },
      contextWindow: m.contextWindow ?? 128_000,
      maxTokens: m.maxTokens ?? 16_384,
      ...(definition.headers ? { headers: definition.headers } : {}),
    };
  });
  return {
    name,
    baseUrl,
    api,
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(rawKey?.startsWith("$") ? { apiKeyEnv: rawKey.slice(1) } : {}),
    ...(definition.headers ? { headers: definition.headers } : {}),
    models,
    ...(definition.streamSimple ? { stream: definition.streamSimple } : {}),
  };
}
