/**
 * The model layer (pi-ai and pi-agent-core) takes most of a second to
 * import. Nothing imports it statically: it loads on first use, or when a
 * host asks for a warm-up, and every caller shares the one load.
 */
export type PiAi = typeof import("@mariozechner/pi-ai");
export type PiAgentCore = typeof import("@mariozechner/pi-agent-core");

export interface Engine {
  ai: PiAi;
  core: PiAgentCore;
}

let loading: Promise<Engine> | undefined;
let loaded: Engine | undefined;
/** pi-ai's registry of apis as it was when the engine loaded: its own entries, before anything else could register one. */
let builtIns: ReadonlyMap<string, unknown> = new Map();

export function loadEngine(): Promise<Engine> {
  loading ??= Promise.all([import("@mariozechner/pi-ai"), import("@mariozechner/pi-agent-core")]).then(([ai, core]) => {
    builtIns = new Map(ai.getApiProviders().map((provider) => [provider.api, provider]));
    loaded = { ai, core };
    return loaded;
  });
  return loading;
}

/** pi-ai's own entry in its registry for `api`, as the engine found it when it loaded; undefined before. */
export function builtInProvider(api: string): unknown {
  return builtIns.get(api);
}

/** The engine if it already loaded; undefined otherwise (never starts a load). */
export function engineIfLoaded(): Engine | undefined {
  return loaded;
}

/** Starts loading in the background; errors surface on the first real use. */
export function warmEngine(): void {
  loadEngine().catch(() => undefined);
}
