import { computed, signal, type ReadonlySignal, type Signal } from "@preact/signals";
import type { AccountUpdatedParams, ClientRequestResult, McpExposure, McpServer, ModelSummary, ResourceInfo } from "@knightcode/app-server-protocol";
import type { Connection } from "../../connection/connection.js";
import { versionOf, type ConfigRead, type Scope } from "./config-model.js";

/**
 * The settings model: the owner of which project the settings screens
 * read and write, of every request they make, and of the rules those
 * writes follow (a chain of expected versions so a change made elsewhere is
 * refused, where a tool switch is written). The tabs are views over it:
 * they ask, confirm and toast. It reaches the server only through the
 * connection it is given, so a test hands it a client over the in-memory
 * transport.
 */

/** What the model needs of a connection: the page's `Connection`, or a test's in-process client. */
export type SettingsConnection = Pick<Connection, "request" | "on">;

export interface SettingsDeps {
  /** Asked at each use: the page's connection is set after the model is made. */
  conn: () => SettingsConnection;
  /** The open thread's folder, which the screens follow unless the user chose another. */
  threadCwd: ReadonlySignal<string | undefined>;
}

type Result<M extends Parameters<SettingsConnection["request"]>[0]> = Promise<ClientRequestResult<M>>;

export interface SettingsModel {
  /** `undefined` follows the open thread's folder, `null` is no project (global only), a string is a folder the user typed. */
  chosenProject: Signal<string | null | undefined>;
  /** The cwd every settings request passes; undefined means global only. */
  cwd: ReadonlySignal<string | undefined>;
  readConfig(): Result<"config/read">;
  /** config/read of the global settings alone, whatever project the screens follow. */
  readGlobalConfig(): Result<"config/read">;
  readTools(): Result<"tool/list">;
  readToolSettings(): Result<"tool/settings/read">;
  readMcp(): Result<"mcp/list">;
  readResources(): Result<"resource/list">;
  readTrust(cwd: string): Result<"project/trust/read">;
  readAccounts(): Result<"account/read">;
  listModels(filter?: { available?: boolean; provider?: string }): Result<"model/list">;
  /** Writes keys one after another into one scope's file, each expecting the version the previous write left (configConflict when the file changed). */
  writeConfig(read: ConfigRead, scope: Scope, changes: Array<[key: string, value: unknown]>): Promise<void>;
  /** Offers a tool to new threads or stops offering it, in the file whose defaultTools is in force; answers the scope written. */
  offerTool(read: ConfigRead, name: string, offer: boolean): Promise<Scope>;
  /** New threads start with this model (global settings). */
  makeDefault(read: ConfigRead, model: Pick<ModelSummary, "provider" | "id">): Promise<void>;
  setToolEnabled(name: string, enabled: boolean): Promise<void>;
  setResource(resource: Pick<ResourceInfo, "type" | "path">, enabled: boolean): Promise<void>;
  setTrust(cwd: string, trusted: boolean): Promise<void>;
  addMcp(scope: Scope, name: string, config: { url: string } | { command: string; args: string[] }): Promise<{ replaced: boolean }>;
  updateMcp(name: string, change: { enabled?: boolean; exposure?: McpExposure }): Promise<void>;
  removeMcp(server: Pick<McpServer, "scope" | "name">): Promise<void>;
  startLogin(provider: string, apiKey?: string): Result<"account/login/start">;
  cancelLogin(loginId: string): Promise<void>;
  logout(provider: string): Promise<boolean>;
  /** account/updated, for the screens that show what a stored or removed key changes; returns the undo. */
  onAccountUpdated(handler: (update: AccountUpdatedParams) => void): () => void;
}

/**
 * The defaultTools patterns with one tool switched: its own patterns go,
 * then `-name` removes it, or the name is added back (plain when the list
 * chooses the set outright, `+name` when it adjusts the built-in set).
 */
export function switchTool(patterns: readonly string[], name: string, offer: boolean): string[] {
  const rest = patterns.filter((p) => p !== name && p !== `+${name}` && p !== `-${name}`);
  if (!offer) return [...rest, `-${name}`];
  const choosesOutright = rest.some((p) => !p.startsWith("+") && !p.startsWith("-"));
  return [...rest, choosesOutright ? name : `+${name}`];
}

export function createSettingsModel(deps: SettingsDeps): SettingsModel {
  const chosenProject = signal<string | null | undefined>(undefined);
  const cwd = computed<string | undefined>(() => {
    const chosen = chosenProject.value;
    if (chosen === null) return undefined;
    return chosen ?? deps.threadCwd.value;
  });
  const cwdParams = (): { cwd?: string } => {
    const at = cwd.peek();
    return at === undefined ? {} : { cwd: at };
  };

  /** The writes in order, each expecting the version the one before left; `at` is the project's params, if any. */
  async function writeIn(read: ConfigRead, scope: Scope, changes: Array<[key: string, value: unknown]>, at: { cwd?: string }): Promise<void> {
    let expectedVersion = versionOf(read, scope);
    for (const [key, value] of changes) {
      const answer = await deps.conn().request("config/write", { scope, key, value, ...at, ...(expectedVersion === undefined ? {} : { expectedVersion }) });
      expectedVersion = answer.version;
    }
  }
  const writeConfig = (read: ConfigRead, scope: Scope, changes: Array<[key: string, value: unknown]>) => writeIn(read, scope, changes, cwdParams());

  return {
    chosenProject,
    cwd,
    readConfig: () => deps.conn().request("config/read", cwdParams()),
    readGlobalConfig: () => deps.conn().request("config/read", {}),
    readTools: () => deps.conn().request("tool/list", cwdParams()),
    readToolSettings: () => deps.conn().request("tool/settings/read", {}),
    readMcp: () => deps.conn().request("mcp/list", cwdParams()),
    readResources: () => deps.conn().request("resource/list", cwdParams()),
    readTrust: (folder) => deps.conn().request("project/trust/read", { cwd: folder }),
    readAccounts: () => deps.conn().request("account/read", {}),
    listModels: (filter = {}) => deps.conn().request("model/list", filter),
    writeConfig,
    async offerTool(read, name, offer) {
      // Written where the list in force comes from: a project's list replaces the global one whole.
      const scope: Scope = read.origins.defaultTools === "project" ? "project" : "global";
      const current = (read.settings as { defaultTools?: unknown }).defaultTools;
      const patterns = Array.isArray(current) ? current.map(String) : [];
      await writeConfig(read, scope, [["defaultTools", switchTool(patterns, name, offer)]]);
      return scope;
    },
    // Global whatever project the screens follow: the default belongs to every new thread (`read` is a config/read without a project).
    makeDefault: (read, model) =>
      writeIn(
        read,
        "global",
        [
          ["defaultProvider", model.provider],
          ["defaultModel", model.id],
        ],
        {},
      ),
    async setToolEnabled(name, enabled) {
      await deps.conn().request("tool/settings/write", { name, key: "enabled", value: enabled });
    },
    async setResource(resource, enabled) {
      await deps.conn().request("resource/set", { ...cwdParams(), type: resource.type, path: resource.path, enabled });
    },
    async setTrust(folder, trusted) {
      await deps.conn().request("project/trust/set", { cwd: folder, trusted });
    },
    addMcp: (scope, name, config) => deps.conn().request("mcp/add", { scope: cwd.peek() === undefined ? "global" : scope, ...cwdParams(), name, config }),
    async updateMcp(name, change) {
      await deps.conn().request("mcp/update", { ...cwdParams(), name, ...change });
    },
    async removeMcp(server) {
      await deps.conn().request("mcp/remove", { ...cwdParams(), scope: server.scope, name: server.name });
    },
    startLogin: (provider, apiKey) => deps.conn().request("account/login/start", { provider, ...(apiKey === undefined ? {} : { apiKey }) }),
    async cancelLogin(loginId) {
      await deps.conn().request("account/login/cancel", { loginId });
    },
    logout: async (provider) => (await deps.conn().request("account/logout", { provider })).removed,
    onAccountUpdated: (handler) => deps.conn().on("account/updated", handler),
  };
}
