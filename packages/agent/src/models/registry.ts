import { statSync } from "node:fs";
import { join } from "node:path";
import type { Api, Model, ModelThinkingLevel } from "@mariozechner/pi-ai";
import { AuthStore, type OAuthCredential } from "./auth-store.js";
import { engineIfLoaded, loadEngine, type PiAi } from "./engine.js";
import { type DistinctModel, distinctModels, type ProviderGroup } from "./distinct.js";
import { ModelError } from "./errors.js";
import { keyEnvHint } from "@knightcode/system/process/key-env-names";
import { readModelsFile, type CustomProvider, type ModelsFileWarning, type ProviderStream } from "./models-json.js";
import type { ModelRef, ModelSummary } from "@knightcode/schema/threads";

export type ModelSource = ModelSummary["source"];

/** What `model/list` shows of a model: the wire's record, one schema for both. */
export type { ModelSummary };

/**
 * Why a model cannot be used: `noCredentials` when no key for its provider
 * is anywhere the server looks, `authFileError` when auth.json (which may
 * hold it) cannot be read. The message says what to set or fix.
 */
export type UnavailableReason = NonNullable<ModelSummary["unavailableReason"]>;

/** What `model/list` may be narrowed to. */
export interface ModelFilter {
  available?: boolean;
  provider?: string;
}

export type { ModelRef };

/** The catalogue marks a price it does not know (a router's, say) with a negative number; we report zero. */
function knownPrices(cost: Model<Api>["cost"]): Model<Api>["cost"] {
  const clamp = (price: number) => (Number.isFinite(price) && price > 0 ? price : 0);
  return { input: clamp(cost.input), output: clamp(cost.output), cacheRead: clamp(cost.cacheRead), cacheWrite: clamp(cost.cacheWrite) };
}

/** Models tried, in order, when nothing chose one and several providers have credentials. */
const PREFERRED_DEFAULTS: ModelRef[] = [
  { provider: "anthropic", id: "claude-sonnet-4-5" },
  { provider: "openai", id: "gpt-5" },
  { provider: "google", id: "gemini-2.5-pro" },
];

interface ExtensionProvider {
  owner: string;
  provider: CustomProvider;
}

/**
 * One model registry per process over pi-ai's catalogue, the custom
 * providers of `<agentDir>/models.json` and providers that extensions
 * register. Credentials come from `<agentDir>/auth.json`, then the provider's
 * environment variables, then a custom provider's own key.
 */
export class ModelRegistry {
  readonly auth: AuthStore;
  private custom: CustomProvider[] = [];
  private modelsFileStamp = "";
  private fileWarnings: ModelsFileWarning[] = [];
  private readonly extensions: ExtensionProvider[] = [];
  /** Configuration problems already written to the log: each goes there once per process. */
  private readonly logged = new Set<string>();

  constructor(
    private readonly agentDir: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly options: { log?: (message: string) => void } = {},
  ) {
    this.auth = new AuthStore(agentDir);
  }

  /** Problems found in models.json by the last load. */
  get warnings(): readonly ModelsFileWarning[] {
    return this.fileWarnings;
  }

  /** Loads the engine and (re)reads models.json when it changed. */
  async load(): Promise<PiAi> {
    const { ai } = await loadEngine();
    this.refreshModelsFile();
    return ai;
  }

  private refreshModelsFile(): void {
    const path = join(this.agentDir, "models.json");
    let stamp = "absent";
    try {
      const stat = statSync(path);
      stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    } catch {
      // No file: no custom providers.
    }
    if (stamp === this.modelsFileStamp) return;
    const file = readModelsFile(this.agentDir, this.env);
    this.custom = file.providers;
    this.fileWarnings = file.warnings;
    this.modelsFileStamp = stamp;
  }

  /**
   * The environment variables custom providers take their keys from:
   * models.json entries whose `apiKey` names a variable (the file is read
   * again when it changed), and extensions' `$NAME` keys. Child processes
   * never receive them.
   */
  keyEnvNames(): string[] {
    this.refreshModelsFile();
    const names: string[] = [];
    for (const provider of [...this.custom, ...this.extensions.map((e) => e.provider)]) {
      if (provider.apiKeyEnv !== undefined) names.push(provider.apiKeyEnv);
    }
    return names;
  }

  /** Adds an extension's provider; it stays until its owner unregisters. */
  registerProvider(owner: string, provider: CustomProvider): void {
    this.unregisterProvider(owner, provider.name);
    this.extensions.push({ owner, provider });
  }

  unregisterProvider(owner: string, name?: string): void {
    for (let i = this.extensions.length - 1; i >= 0; i--) {
      const entry = this.extensions[i]!;
      if (entry.owner === owner && (name === undefined || entry.provider.name === name)) this.extensions.splice(i, 1);
    }
  }

  /**
   * The stream function an extension gave its provider, for that
   * provider's models; undefined for everything pi-ai streams itself. By
   * provider name, as credentials are, so a model chosen while one thread's
   * instance of the extension was registered streams through whichever
   * instance is registered now.
   */
  streamFor(model: Model<Api>): ProviderStream | undefined {
    return this.extensions.find(({ provider }) => provider.name === model.provider)?.provider.stream;
  }

  /**
   * Every provider in the registry's order: extensions, custom, then
   * built-in. A built-in provider's models are read when asked for: in the
   * bundle, the catalogue parses a provider on its first use (see
   * scripts/lib/model-catalogue.mjs), and most never are.
   */
  private allProviders(ai: PiAi): ProviderGroup[] {
    const out: ProviderGroup[] = [];
    for (const { provider } of this.extensions)
      out.push({ provider: provider.name, models: () => provider.models, source: "extension", apiKey: provider.apiKey });
    for (const provider of this.custom) out.push({ provider: provider.name, models: () => provider.models, source: "custom", apiKey: provider.apiKey });
    for (const name of ai.getProviders()) out.push({ provider: name, models: () => ai.getModels(name as never) as Model<Api>[], source: "builtin" });
    return out;
  }

  /**
   * Every provider the registry knows, once, with whether the server's
   * environment holds its key: one of a built-in provider's variables, or
   * the variable a custom or extension provider's `apiKey` names. The same
   * sources `apiKey` falls back on after auth.json, so `envKey` true means a
   * key is usable without a stored one.
   */
  async providers(): Promise<{ name: string; envKey: boolean }[]> {
    const ai = await this.load();
    const envKey = new Map<string, boolean>();
    const note = (name: string, fromEnv: boolean) => envKey.set(name, (envKey.get(name) ?? false) || fromEnv);
    for (const provider of [...this.extensions.map((e) => e.provider), ...this.custom])
      note(provider.name, provider.apiKeyEnv !== undefined && provider.apiKey !== undefined);
    for (const name of ai.getProviders()) note(name, false);
    return [...envKey].map(([name, fromEnv]) => ({ name, envKey: fromEnv || ai.getEnvApiKey(name) !== undefined }));
  }

  /**
   * Every model once, in the registry's order (extension, custom, then
   * built-in providers; an earlier entry shadows a later one of the same
   * provider and id), with whether its provider has credentials.
   */
  private eachModel(ai: PiAi, options: { availableOnly?: boolean } = {}): Generator<DistinctModel> {
    const auth = this.auth.readAll();
    const available = (group: ProviderGroup) =>
      auth.credentials[group.provider] !== undefined || group.apiKey !== undefined || ai.getEnvApiKey(group.provider) !== undefined;
    return distinctModels(this.allProviders(ai), available, (group) => whyUnavailable(group.provider, group.source, auth.problem?.message), options);
  }

  /**
   * What is wrong with models.json and auth.json, as warnings: a file that
   * does not parse or validate, an auth.json entry that is no credential,
   * a models.json provider with no key anywhere (its models list as
   * unavailable). Each new one also goes to the log, once per process.
   */
  configWarnings(): ModelsFileWarning[] {
    // Not a reason to load the engine: a thread can open before it is warm. Without it, only a custom
    // provider named like a built-in one could have an environment key this misses.
    const ai = engineIfLoaded()?.ai;
    this.refreshModelsFile();
    const warnings = [...this.fileWarnings];
    const auth = this.auth.readAll();
    if (auth.problem) warnings.push({ ...auth.problem, message: `${auth.problem.message}; its credentials are not used until it is fixed` });
    for (const name of auth.ignored) {
      warnings.push({
        path: this.auth.path,
        message: `auth.json: the entry for "${name}" is not a credential ({"type": "api_key", "key": ...} or an OAuth login); ignored`,
      });
    }
    for (const provider of this.custom) {
      if (provider.apiKey !== undefined || auth.credentials[provider.name] !== undefined || ai?.getEnvApiKey(provider.name) !== undefined) continue;
      warnings.push({ path: join(this.agentDir, "models.json"), message: `models.json: ${whyUnavailable(provider.name, "custom").message}` });
    }
    for (const warning of warnings) {
      const key = `${warning.path}\u0000${warning.line ?? ""}\u0000${warning.column ?? ""}\u0000${warning.message}`;
      if (this.logged.has(key)) continue;
      this.logged.add(key);
      this.options.log?.(
        warning.line !== undefined ? `${warning.message} (${warning.path}:${warning.line}:${warning.column ?? 1})` : `${warning.message} (${warning.path})`,
      );
    }
    return warnings;
  }

  async list(filter: ModelFilter = {}): Promise<ModelSummary[]> {
    const ai = await this.load();
    const summaries: ModelSummary[] = [];
    for (const { model, source, available, unavailableReason } of this.eachModel(ai)) {
      if (filter.available !== undefined && filter.available !== available) continue;
      if (filter.provider !== undefined && filter.provider !== model.provider) continue;
      summaries.push({
        provider: model.provider,
        id: model.id,
        name: model.name,
        reasoning: model.reasoning,
        thinkingLevels: ai.getSupportedThinkingLevels(model),
        contextWindow: model.contextWindow,
        maxTokens: model.maxTokens,
        input: model.input,
        cost: knownPrices(model.cost),
        available,
        ...(unavailableReason ? { unavailableReason } : {}),
        source,
      });
    }
    return summaries;
  }

  /** A model by provider and id; extension and custom entries shadow built-ins of the same name. */
  async find(ref: ModelRef): Promise<Model<Api> | undefined> {
    const ai = await this.load();
    for (const group of this.allProviders(ai)) {
      if (group.provider !== ref.provider) continue;
      const model = group.models().find((m) => m.id === ref.id);
      if (model) return model;
    }
    return undefined;
  }

  async thinkingLevels(model: Model<Api>): Promise<ModelThinkingLevel[]> {
    const ai = await this.load();
    return ai.getSupportedThinkingLevels(model);
  }

  /** The key to send to a provider, refreshing an expired OAuth token; undefined when there is none. */
  async apiKey(provider: string): Promise<string | undefined> {
    const ai = await this.load();
    const credential = this.auth.get(provider);
    if (credential?.type === "api_key") return credential.key;
    if (credential?.type === "oauth") return this.oauthKey(provider, credential);
    const env = ai.getEnvApiKey(provider);
    if (env !== undefined) return env;
    const custom = [...this.extensions.map((e) => e.provider), ...this.custom].find((p) => p.name === provider);
    return custom?.apiKey;
  }

  private async oauthKey(provider: string, credential: OAuthCredential): Promise<string | undefined> {
    const oauth = await import("@mariozechner/pi-ai/oauth");
    const result = await oauth.getOAuthApiKey(provider as never, { [provider]: credential as never });
    if (!result) return undefined;
    if ((result.newCredentials as { access?: string }).access !== credential.access)
      await this.auth.set(provider, { type: "oauth", ...(result.newCredentials as object) } as OAuthCredential);
    return result.apiKey;
  }

  /**
   * The model a turn should use: the requested one, else the configured
   * default, else the first preferred model with credentials, else the first
   * model of a provider with credentials. Throws a ModelError, never hangs.
   */
  async resolve(requested?: ModelRef, configured?: Partial<ModelRef>): Promise<Model<Api>> {
    if (requested) {
      const model = await this.find(requested);
      if (!model) throw new ModelError("modelNotFound", `unknown model ${requested.provider}/${requested.id}`, requested.provider, requested.id);
      return model;
    }
    if (configured?.provider && configured.id) {
      const model = await this.find({ provider: configured.provider, id: configured.id });
      if (model) return model;
    }
    const usable = this.usable(await this.load());
    const pick =
      PREFERRED_DEFAULTS.map((ref) => usable.find(({ model }) => model.provider === ref.provider && model.id === ref.id)).find(Boolean) ??
      usable.find(({ source }) => source !== "builtin") ??
      usable[0];
    if (!pick) throw new ModelError("noModel", "no model is usable: add an API key (auth.json or an environment variable) or a provider in models.json");
    return (await this.find({ provider: pick.model.provider, id: pick.model.id }))!;
  }

  /**
   * The models `list` reports as available, in its order, without building
   * its summaries: picking a default runs on every new thread, and pricing
   * and levelling a thousand models for it took longer than the rest.
   */
  private usable(ai: PiAi): { model: Model<Api>; source: ModelSource }[] {
    return [...this.eachModel(ai, { availableOnly: true })];
  }

  /** Throws noCredentials when the model's provider has no key. */
  async requireCredentials(model: Model<Api>): Promise<string> {
    const key = await this.apiKey(model.provider);
    if (key === undefined || key === "") {
      throw new ModelError("noCredentials", `no credentials for ${model.provider}: sign in or set its API key`, model.provider, model.id);
    }
    return key;
  }
}

/** Why a provider's models are unavailable, and what to do about it; never a key. */
function whyUnavailable(provider: string, source: ModelSource, authProblem?: string): UnavailableReason {
  if (authProblem !== undefined) return { kind: "authFileError", message: `${authProblem}; fix or remove it, or set the provider's key in the environment` };
  if (source === "custom") {
    return {
      kind: "noCredentials",
      message: `provider "${provider}" has no "apiKey": set it to the name of an environment variable holding the key, or to any placeholder such as "none" for a local server that takes no key`,
    };
  }
  if (source === "extension")
    return { kind: "noCredentials", message: `no key for "${provider}": the extension registering it gave none; add a "${provider}" entry to auth.json` };
  const variable = keyEnvHint(provider);
  if (variable === undefined)
    return { kind: "noCredentials", message: `not signed in to "${provider}": sign in with account/login/start (its tokens go to auth.json)` };
  return {
    kind: "noCredentials",
    message: `no key for "${provider}": set ${variable} in the server's environment, or store one in auth.json (account/login/start)`,
  };
}
