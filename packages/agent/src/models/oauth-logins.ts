import { randomUUID } from "node:crypto";
import type { OAuthCredentials, OAuthLoginCallbacks, OAuthPrompt, OAuthProviderInterface } from "@mariozechner/pi-ai/oauth";
import { nextTurn } from "@knightcode/system/util/next-turn";
import { AuthFileError, type AuthStore } from "./auth-store.js";

/** How a login that showed its URL ended. */
export interface LoginEnd {
  loginId: string;
  provider: string;
  outcome: "completed" | "failed" | "cancelled";
  /** Why it failed, in our own words: a provider's reply can carry tokens, so none is quoted. */
  message?: string;
}

export interface LoginStarted {
  loginId: string;
  url: string;
  /** For a device-code login: the code to enter on the page. */
  instructions?: string;
}

/** `stopped`: shutdown began; `failed`: the login ended before it showed a URL. */
export class LoginError extends Error {
  override readonly name = "LoginError";
  constructor(
    readonly code: "stopped" | "failed",
    message: string,
  ) {
    super(message);
  }
}

export interface OAuthLoginsOptions {
  auth: AuthStore;
  /** Told once for each login that showed its URL, when it ends. */
  onEnd(end: LoginEnd): void;
  log(line: string): void;
  /** How long a login may wait for the user; ten minutes by default. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

type StopReason = "cancelled" | "expired";

interface Pending {
  provider: string;
  controller: AbortController;
  /** Settles once the flow stopped (its callback server closed) and what it got is saved or dropped. */
  ended: Promise<void>;
}

type OAuthModule = typeof import("@mariozechner/pi-ai/oauth");
let oauthModule: Promise<OAuthModule> | undefined;

/**
 * pi-ai's OAuth flows. The OpenAI Codex flow fetches node:crypto and
 * node:http in promises its module starts as it loads, and refuses to run
 * before they settle; by the time a later import of both and one turn of the
 * event loop are over, they have.
 */
function loadOAuth(): Promise<OAuthModule> {
  oauthModule ??= import("@mariozechner/pi-ai/oauth").then(async (oauth) => {
    await Promise.all([import("node:crypto"), import("node:http")]);
    await nextTurn();
    return oauth;
  });
  return oauthModule;
}

/** Whether pi-ai offers an OAuth login for the provider. */
export async function hasOAuthLogin(provider: string): Promise<boolean> {
  return (await loadOAuth()).getOAuthProvider(provider) !== undefined;
}

/** A code-paste prompt the server cannot relay: it has no way to ask a person outside a thread. */
class PromptRefused extends Error {}

/** Resolves never; rejects when the login is stopped, which is how a waiting flow is told to give up. */
function untilStopped(signal: AbortSignal): Promise<string> {
  return new Promise((_, reject) => {
    const stop = () => reject(new Error(`login ${String(signal.reason)}`));
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
}

/** What a failure may say: our words, and a system error's code (EADDRINUSE) at most. */
function failureMessage(provider: string, error: unknown): string {
  if (error instanceof PromptRefused) {
    return `${provider} asked for a code to be pasted, which the app server cannot pass on; start the login again and finish it in a browser on this machine`;
  }
  if (error instanceof AuthFileError) return `the login succeeded but could not be saved: ${error.message}`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EADDRINUSE") return `the login's local callback port is in use: another login or program holds it`;
  return `the ${provider} login failed${typeof code === "string" && /^E[A-Z]+$/.test(code) ? ` (${code})` : ""}`;
}

type Shown = Omit<LoginStarted, "loginId">;

/**
 * Runs one provider's flow. `urlShown` resolves when the flow shows its
 * URL; `end` resolves, never rejects, once the flow stopped and what it got
 * is saved, or dropped because `signal` aborted first.
 */
function runLogin(
  provider: OAuthProviderInterface,
  loginId: string,
  signal: AbortSignal,
  save: (credentials: OAuthCredentials) => Promise<unknown>,
): { urlShown: Promise<Shown>; end: Promise<LoginEnd>; shown(): boolean } {
  const name = provider.id;
  let shown: Shown | undefined;
  let show!: (shown: Shown) => void;
  const urlShown = new Promise<Shown>((resolve) => (show = resolve));
  const callbacks: OAuthLoginCallbacks = {
    onAuth: (info) => {
      if (shown) return;
      // A flow with a callback server finishes in the browser; its instructions speak of pasting, which we cannot take.
      shown = { url: info.url, ...(info.instructions && !provider.usesCallbackServer ? { instructions: info.instructions } : {}) };
      show(shown);
    },
    // An empty answer where one is allowed takes the default (github.com for GitHub Copilot); anything else cannot be asked.
    onPrompt: async (prompt: OAuthPrompt) => {
      if (prompt.allowEmpty) return "";
      throw new PromptRefused();
    },
    onManualCodeInput: () => untilStopped(signal),
    onSelect: async () => undefined,
    signal,
  };
  const stopped = (): LoginEnd =>
    signal.reason === "expired"
      ? { loginId, provider: name, outcome: "failed", message: "the login was not finished in time" }
      : { loginId, provider: name, outcome: "cancelled" };
  const end = Promise.resolve()
    .then(() => provider.login(callbacks))
    .then(async (credentials): Promise<LoginEnd> => {
      if (signal.aborted) return stopped();
      if (!shown) return { loginId, provider: name, outcome: "failed", message: `the ${name} login gave no URL` };
      await save(credentials);
      return { loginId, provider: name, outcome: "completed" };
    })
    .catch((error: unknown): LoginEnd => (signal.aborted ? stopped() : { loginId, provider: name, outcome: "failed", message: failureMessage(name, error) }));
  return { urlShown, end, shown: () => shown !== undefined };
}

/**
 * OAuth logins waiting for the user, by id. A login runs pi-ai's flow for
 * its provider: the flow opens its local callback server, shows the URL,
 * and waits for the browser to come back; the credential it gets is saved
 * to auth.json. A login is stopped by cancel, by a newer login for the same
 * provider, at its time limit, or by stop at shutdown; a stopped login
 * saves nothing.
 */
export class OAuthLogins {
  private readonly pending = new Map<string, Pending>();
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: OAuthLoginsOptions) {}

  /**
   * Starts a login and resolves with its URL as soon as the flow shows it.
   * `signal` aborting before then (the asking connection went) stops it.
   */
  async start(providerName: string, signal?: AbortSignal): Promise<LoginStarted> {
    const provider = (await loadOAuth()).getOAuthProvider(providerName);
    if (!provider) throw new LoginError("failed", `${providerName} has no OAuth login`);
    // One login per provider: pi-ai's flows listen on a fixed port each. Nothing awaits between the last check and the new entry.
    for (let other = this.pendingFor(providerName); other !== undefined; other = this.pendingFor(providerName)) await this.cancel(other);
    if (this.stopping) throw new LoginError("stopped", "the server is shutting down");

    const loginId = randomUUID();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort("expired" satisfies StopReason), this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    timer.unref();
    const run = runLogin(provider, loginId, controller.signal, (credentials) => this.options.auth.set(providerName, { ...credentials, type: "oauth" }));
    const ended = run.end.then((end) => {
      clearTimeout(timer);
      this.pending.delete(loginId);
      this.options.log(`account: login ${loginId} (${providerName}) ${end.outcome}${end.message ? `: ${end.message}` : ""}`);
      try {
        if (run.shown()) this.options.onEnd(end);
      } catch (error) {
        this.options.log(`account: telling the end of login ${loginId} failed: ${(error as Error).message}`);
      }
    });
    this.pending.set(loginId, { provider: providerName, controller, ended });

    const onAbort = () => controller.abort("cancelled" satisfies StopReason);
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();
    try {
      const first = await Promise.race([run.urlShown, run.end]);
      if ("outcome" in first) throw new LoginError("failed", first.message ?? `the ${providerName} login ended before it showed a URL`);
      this.options.log(`account: login ${loginId} (${providerName}) waits for the browser`);
      return { loginId, ...first };
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  private pendingFor(provider: string): string | undefined {
    for (const [loginId, login] of this.pending) if (login.provider === provider) return loginId;
    return undefined;
  }

  /** Stops a pending login and resolves once its flow stopped; false when none has that id. */
  async cancel(loginId: string): Promise<boolean> {
    const login = this.pending.get(loginId);
    if (!login) return false;
    login.controller.abort("cancelled" satisfies StopReason);
    await login.ended;
    return true;
  }

  /** Stops every pending login and refuses new ones; resolves once all have stopped. Safe to call twice. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const all = [...this.pending.values()];
      for (const login of all) login.controller.abort("cancelled" satisfies StopReason);
      await Promise.all(all.map((login) => login.ended));
    })();
    return this.stopping;
  }
}
