import type { ModelRegistry } from "@knightcode/agent/models/registry";
import type { ThreadEnvironment } from "@knightcode/agent/thread/runtime-options";
import type { TrustStore } from "@knightcode/agent/trust/store";
import type { PendingRequest } from "../asking/pending-requests.js";
import type { AccountService } from "../config/account-service.js";
import type { ServerContext } from "../host/context.js";
import type { PayloadStore } from "../payloads/store.js";
import type { ServerHost } from "../host/server-host.js";
import type { ThreadCatalog } from "../threads/catalog.js";
import type { ThreadManager } from "../threads/manager.js";
import type { ServerWorktrees } from "../threads/worktrees.js";

/** The services a server builds on first use; `Services.loaded` names those built so far. */
export type ServiceName = "trust" | "registry" | "environment" | "catalog" | "threads" | "accounts";

/**
 * The composition root: what handlers use, built once per server and each
 * loaded on first use, so that a method touching a file loads the code of
 * that file and nothing else. `config/write` needs the trust store, not the
 * agent run; `thread/list` the catalog, not the thread manager. Each piece
 * is made from the pieces below it: the environment from trust and the
 * registry, the thread manager from the environment and the catalog.
 */
export class Services {
  private readonly made = new Map<ServiceName, Promise<unknown>>();
  private readonly built = new Set<ServiceName>();
  private manager: ThreadManager | undefined;
  private registryValue: ModelRegistry | undefined;

  constructor(private readonly server: ServerHost) {}

  get context(): ServerContext {
    return this.server.context;
  }

  /** The large-value spool: part of the context, made on first use without loading anything. */
  get payloads(): PayloadStore {
    return this.context.payloads;
  }

  /** The services built so far: how a test sees what a method loaded. */
  get loaded(): ReadonlySet<ServiceName> {
    return this.built;
  }

  /** The server-owned trust decisions, which every settings file's project scope consults. */
  trust(): Promise<TrustStore> {
    return this.once("trust", async () => (await import("../trust/store.js")).createTrustStore(this.context));
  }

  /** The model registry: auth.json, models.json and the providers threads registered. */
  registry(): Promise<ModelRegistry> {
    return this.once("registry", async () => {
      this.registryValue = (await import("../models/registry.js")).createModelRegistry(this.context);
      return this.registryValue;
    });
  }

  /** The registry if something made it already; nothing is loaded to answer. */
  get loadedRegistry(): ModelRegistry | undefined {
    return this.registryValue;
  }

  /** What every thread shares (registry, trust, built-in extensions, extension code cache); what a probe of a new thread runs on. */
  environment(): Promise<ThreadEnvironment> {
    return this.once("environment", async () => {
      const [{ threadEnvironment }, registry, trust] = await Promise.all([import("../threads/environment.js"), this.registry(), this.trust()]);
      return threadEnvironment(this.context, { registry, trust });
    });
  }

  /** The threads on disk, for listings and history: the same catalog the thread manager uses. */
  catalog(): Promise<ThreadCatalog> {
    return this.once("catalog", async () => new (await import("../threads/catalog.js")).ThreadCatalog(this.context, this.server));
  }

  /** The loaded threads and the agent run they stand on: the heavy layer, loaded on first use. */
  threads(): Promise<ThreadManager> {
    return this.once("threads", async () => {
      const [{ ThreadManager }, catalog, environment] = await Promise.all([import("../threads/manager.js"), this.catalog(), this.environment()]);
      return this.attach(new ThreadManager(this.context, catalog, environment));
    });
  }

  /** The managed worktrees the threads run in: they answer for the threads using them, so they come with the thread manager. */
  async worktrees(): Promise<ServerWorktrees> {
    return (await this.threads()).worktrees;
  }

  /** The thread manager if it exists yet; nothing is loaded to answer. */
  get loadedThreads(): ThreadManager | undefined {
    return this.manager;
  }

  /**
   * What the loaded threads wait on a person for, oldest first; nothing is
   * loaded to answer: without a thread manager no thread was ever asked.
   */
  pendingRequests(): PendingRequest[] {
    return this.manager?.requests.list() ?? [];
  }

  /** The threads and the catalog while either is being made or exists, for shutdown to wait on; undefined when never asked for. */
  pending(): { threads?: Promise<ThreadManager>; catalog?: Promise<ThreadCatalog> } {
    const threads = this.made.get("threads") as Promise<ThreadManager> | undefined;
    const catalog = this.made.get("catalog") as Promise<ThreadCatalog> | undefined;
    return { ...(threads ? { threads } : {}), ...(catalog ? { catalog } : {}) };
  }

  /** The account methods' shared state: OAuth logins under way and the `account/updated` broadcast. */
  accounts(): Promise<AccountService> {
    return this.once("accounts", async () => {
      const [{ AccountService }, registry] = await Promise.all([import("../config/account-service.js"), this.registry()]);
      return new AccountService(this.server, registry);
    });
  }

  /**
   * Takes a manager an embedding host made: its environment, catalog,
   * trust store and registry become the server's, so every handler sees
   * the same ones its threads do.
   */
  adopt(manager: ThreadManager): void {
    const environment = manager.environment;
    this.settle("trust", environment.trust);
    this.settle("registry", environment.registry);
    this.registryValue = environment.registry;
    this.settle("environment", environment);
    this.settle("catalog", manager.catalog);
    this.settle("threads", this.attach(manager));
  }

  private attach(manager: ThreadManager): ThreadManager {
    manager.attach(this.server);
    this.manager = manager;
    return manager;
  }

  private settle<T>(name: ServiceName, value: T): void {
    this.made.set(name, Promise.resolve(value));
    this.built.add(name);
  }

  private once<T>(name: ServiceName, make: () => Promise<T>): Promise<T> {
    let made = this.made.get(name) as Promise<T> | undefined;
    if (!made) {
      made = make().then((value) => {
        this.built.add(name);
        return value;
      });
      this.made.set(name, made);
    }
    return made;
  }
}
