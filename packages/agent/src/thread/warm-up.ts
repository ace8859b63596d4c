import { loadEngine } from "../models/engine.js";
import { loadProvider, transportOf } from "../models/providers.js";
import type { ModelRegistry } from "../models/registry.js";
import { warmRequest } from "../models/warm-request.js";
import { readSettings } from "../settings/read.js";
import { loadThreadRuntime } from "./load-runtime.js";

export interface WarmUpOptions {
  agentDir: string;
  registry: ModelRegistry;
  /**
   * Resolves when the host has nothing more pressing to do (no request
   * being answered); every step waits for it, so a request that arrives
   * during the warm-up waits at most for the step under way.
   */
  idle?: () => Promise<void>;
}

/**
 * Loads, one step at a time, what the first thread and its first turn
 * would otherwise wait for. Best effort: a step that fails is what the
 * first real use pays for, and reports. Two parts, each its own call:
 *
 * - warmThreadLayer: the engine and the agent run, which a new thread
 *   needs: a host warms them once its client is connected;
 * - warmDefaultModel: for the default model, its provider's module with
 *   its SDK and one request through them to a server of our own (what its
 *   first response would wait for): a host warms it once a thread is
 *   open, since it is the heaviest part and a client that opens no
 *   thread never needs it.
 */
export async function warmUp(options: WarmUpOptions): Promise<void> {
  await warmThreadLayer(options);
  await warmDefaultModel(options);
}

/**
 * The engine, then the agent run, then the default model's resolution
 * (settings and models read as a new thread reads them), each once the
 * host is idle.
 */
export async function warmThreadLayer(options: WarmUpOptions): Promise<void> {
  const idle = options.idle ?? (() => Promise.resolve());
  await idle();
  await loadEngine();
  await idle();
  await loadThreadRuntime();
  await idle();
  await defaultModel(options);
}

/**
 * The default model's provider, then a request through it, then, for a
 * model served over https, what its first connection would wait for (see
 * prepareSecure), each once the host is idle; nothing without a usable
 * model.
 */
export async function warmDefaultModel(options: WarmUpOptions): Promise<void> {
  const idle = options.idle ?? (() => Promise.resolve());
  await idle();
  const model = await defaultModel(options);
  if (model === undefined) return;
  await idle();
  await loadProvider(model.api);
  const transport = transportOf(model.api);
  if (transport === "none") return;
  await idle();
  // A host without a loopback interface cannot warm this; its first request pays, as it would have.
  await warmRequest(model).catch(() => undefined);
  if (!isHttps(model.baseUrl)) return;
  await idle();
  // Loaded here, not with the module: a host whose model is local never loads the transport's TLS side.
  const { prepareSecure } = await import("../models/http-fetch.js");
  await prepareSecure(transport);
}

function isHttps(url: string): boolean {
  try {
    return new URL(url).protocol === "https:";
  } catch {
    return false;
  }
}

/** The model a thread starts with when neither its project nor its client picks one; undefined when none is usable. */
async function defaultModel({ agentDir, registry }: WarmUpOptions) {
  const { effective } = readSettings({ agentDir });
  try {
    return await registry.resolve(undefined, { provider: effective.defaultProvider ?? undefined, id: effective.defaultModel ?? undefined });
  } catch {
    return undefined;
  }
}
