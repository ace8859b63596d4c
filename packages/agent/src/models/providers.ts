import type { Api } from "@mariozechner/pi-ai";

/**
 * pi-ai imports a provider's module (and with it the provider's SDK) on the
 * first request of a model of it. The same modules, by their exported
 * names: importing one ahead of time is what pi-ai's own import then finds.
 * Bedrock's module is not exported; it loads on first use.
 */
const PROVIDER_MODULES: Partial<Record<Api, () => Promise<unknown>>> = {
  "anthropic-messages": () => import("@mariozechner/pi-ai/anthropic"),
  "openai-completions": () => import("@mariozechner/pi-ai/openai-completions"),
  "openai-responses": () => import("@mariozechner/pi-ai/openai-responses"),
  "azure-openai-responses": () => import("@mariozechner/pi-ai/azure-openai-responses"),
  "openai-codex-responses": () => import("@mariozechner/pi-ai/openai-codex-responses"),
  "mistral-conversations": () => import("@mariozechner/pi-ai/mistral"),
  "google-generative-ai": () => import("@mariozechner/pi-ai/google"),
  "google-vertex": () => import("@mariozechner/pi-ai/google-vertex"),
};

/** The apis whose module was asked for ahead of a request. */
const asked = new Set<Api>();

/** Loads the module that streams from models of `api`; false when there is none to load ahead. */
export async function loadProvider(api: Api): Promise<boolean> {
  const load = PROVIDER_MODULES[api];
  if (load === undefined) return false;
  asked.add(api);
  await load();
  return true;
}

/** Whether `loadProvider` was asked for `api`'s module in this process. */
export function providerAsked(api: Api): boolean {
  return asked.has(api);
}

/**
 * What a provider's requests go through: in the bundle, the OpenAI and
 * Anthropic SDKs send theirs through our `modelFetch` (scripts/lib/sdk-http.mjs);
 * the other SDKs, and pi-ai's own Codex requests, through the global
 * `fetch`; Bedrock's AWS client through neither.
 */
export type Transport = "modelFetch" | "fetch" | "none";

const MODEL_FETCH_APIS = new Set<Api>(["openai-completions", "openai-responses", "azure-openai-responses", "anthropic-messages"]);

export function transportOf(api: Api): Transport {
  if (api === "bedrock-converse-stream") return "none";
  return MODEL_FETCH_APIS.has(api) ? "modelFetch" : "fetch";
}
