import type { Api, ApiStreamSimpleFunction } from "@mariozechner/pi-ai";
import { builtInProvider, type PiAi } from "./engine.js";

/**
 * pi-ai imports a provider's module (and with it the provider's SDK) on the
 * first request of a model of it. The same modules, by their exported
 * names, with the name of each one's own stream function: importing one
 * ahead of time is what pi-ai's own import then finds. Bedrock's module is
 * not exported; it loads on first use.
 */
const PROVIDER_MODULES: Partial<Record<Api, { load: () => Promise<object>; streamSimple: string }>> = {
  "anthropic-messages": { load: () => import("@mariozechner/pi-ai/anthropic"), streamSimple: "streamSimpleAnthropic" },
  "openai-completions": { load: () => import("@mariozechner/pi-ai/openai-completions"), streamSimple: "streamSimpleOpenAICompletions" },
  "openai-responses": { load: () => import("@mariozechner/pi-ai/openai-responses"), streamSimple: "streamSimpleOpenAIResponses" },
  "azure-openai-responses": {
    load: () => import("@mariozechner/pi-ai/azure-openai-responses"),
    streamSimple: "streamSimpleAzureOpenAIResponses",
  },
  "openai-codex-responses": {
    load: () => import("@mariozechner/pi-ai/openai-codex-responses"),
    streamSimple: "streamSimpleOpenAICodexResponses",
  },
  "mistral-conversations": { load: () => import("@mariozechner/pi-ai/mistral"), streamSimple: "streamSimpleMistral" },
  "google-generative-ai": { load: () => import("@mariozechner/pi-ai/google"), streamSimple: "streamSimpleGoogle" },
  "google-vertex": { load: () => import("@mariozechner/pi-ai/google-vertex"), streamSimple: "streamSimpleGoogleVertex" },
};

/** The apis whose module was asked for ahead of a request. */
const asked = new Set<Api>();
/** The stream function of each module loaded ahead, by api. */
const ownStreams = new Map<Api, ApiStreamSimpleFunction>();

/** Loads the module that streams from models of `api`; false when there is none to load ahead. */
export async function loadProvider(api: Api): Promise<boolean> {
  if (PROVIDER_MODULES[api] === undefined) return false;
  asked.add(api);
  await loadModule(api);
  return true;
}

/** Imports `api`'s module (once: the import is shared with pi-ai's own) and keeps its stream function. */
async function loadModule(api: Api): Promise<void> {
  const entry = PROVIDER_MODULES[api];
  if (entry === undefined) return;
  const module = (await entry.load()) as Record<string, unknown>;
  const stream = module[entry.streamSimple];
  if (typeof stream === "function") ownStreams.set(api, stream as ApiStreamSimpleFunction);
}

/** Whether `loadProvider` was asked for `api`'s module in this process. */
export function providerAsked(api: Api): boolean {
  return asked.has(api);
}

/**
 * The function a request to a model of `api` streams through. pi-ai's
 * registry holds, for each built-in api, a loader: it imports the
 * provider's module on first use and then copies each event of the
 * module's stream into a stream of its own, a hop every event of every
 * reply pays. Once the module is loaded ahead (loadProvider), and while the
 * registry still holds pi-ai's own entry for the api (as it was when the
 * engine loaded), this is the module's function itself: the same events,
 * one stream fewer. Otherwise it is pi-ai's `streamSimple`, and a model
 * whose module was not loaded ahead (not the default one) has it loaded
 * now, alongside pi-ai's own import of it: its next request goes the short
 * way.
 */
export function modelStreamOf(ai: PiAi, api: Api): ApiStreamSimpleFunction {
  const own = ownStreams.get(api);
  if (own === undefined) {
    loadModule(api).catch(() => undefined);
    return ai.streamSimple;
  }
  return builtInProvider(api) === ai.getApiProvider(api) ? own : ai.streamSimple;
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
