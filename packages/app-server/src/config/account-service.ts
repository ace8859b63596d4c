import { AuthFileError } from "@knightcode/agent/models/auth-store";
import { OAuthLogins, type LoginEnd } from "@knightcode/agent/models/oauth-logins";
import type { ModelRegistry } from "@knightcode/agent/models/registry";
import type { ServerNotificationParams } from "@knightcode/app-server-protocol";
import { rpcError } from "../rpc/errors.js";
import type { ServerHost } from "../host/server-host.js";

type Account = ServerNotificationParams<"account/updated">["accounts"][number];

/**
 * What the account methods share in one server: the registry whose
 * auth.json they edit, the OAuth logins waiting for a browser, and the
 * `account/updated` broadcast. Logins stop when shutdown begins (the server
 * stops its input, and a login's callback server is input) and when a host
 * disposes the context.
 */
export class AccountService {
  readonly logins: OAuthLogins;

  constructor(
    private readonly server: ServerHost,
    readonly registry: ModelRegistry,
  ) {
    const log = server.context.log;
    this.logins = new OAuthLogins({
      auth: registry.auth,
      onEnd: (end) => this.announce(end),
      log: (line) => log.info(line),
    });
    const stop = () => this.logins.stop().catch((error: unknown) => log.error("stopping logins failed", error));
    server.onStopInput(() => void stop());
    server.context.onDispose(stop);
  }

  /**
   * Each provider with a usable credential and where it comes from, sorted
   * by provider: auth.json's entry, else a key in the environment. With an
   * unusable auth.json, only the environment's, and the problem.
   */
  async accounts(): Promise<{ accounts: Account[]; problem?: string }> {
    const { credentials, problem } = this.registry.auth.readAll();
    const kinds = new Map<string, Account["kind"]>();
    for (const [provider, credential] of Object.entries(credentials)) kinds.set(provider, credential.type === "api_key" ? "apiKey" : "oauth");
    for (const { name, envKey } of await this.registry.providers()) if (envKey && !kinds.has(name)) kinds.set(name, "env");
    const accounts = [...kinds]
      .map(([provider, kind]) => ({ provider, kind }))
      .sort((a, b) => (a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0));
    return problem === undefined ? { accounts } : { accounts, problem: problem.message };
  }

  /** Tells every initialized connection what the accounts are now, and how a login ended when one did. */
  announce(login?: LoginEnd): void {
    this.accounts()
      .then(({ accounts }) => this.server.broadcast("account/updated", login ? { accounts, login } : { accounts }))
      .catch((error: unknown) => this.server.context.log.warn("account/updated could not be sent", error));
  }

  /** Whether the registry knows the provider: a built-in, a models.json or an extension provider. */
  async knows(provider: string): Promise<boolean> {
    return (await this.registry.providers()).some(({ name }) => name === provider);
  }
}

/** Maps an auth.json failure: the file is named, its content never shown. */
export function authFileError(error: unknown): Error {
  if (error instanceof AuthFileError) {
    const advice = error.code === "corrupt" ? "; fix or remove it, it was left as it was" : "";
    return rpcError("internal", `${error.message}${advice}`);
  }
  return error as Error;
}

/** invalidParams for a provider the server does not know. */
export function unknownProvider(provider: string, why = "model/list shows the providers"): Error {
  return rpcError("invalidParams", `params.provider: unknown provider ${JSON.stringify(provider)}; ${why}`);
}
