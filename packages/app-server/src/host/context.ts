import { homedir } from "node:os";
import type { ServerSecrets } from "@knightcode/system/process/child-env";
import { join, resolve } from "node:path";
import { SavedTurnCache } from "../history/saved-turns.js";
import { createLogger, levelFromEnv, type Logger } from "./log.js";
import { scheduleStaleSpoolSweep } from "../payloads/stale-spools.js";
import { PayloadStore } from "../payloads/store.js";

export interface ServerContextOptions {
  /** Where KnightCode keeps its settings, credentials and sessions; `KNIGHTCODE_CODING_AGENT_DIR` or `~/.knightcode/agent` by default. */
  agentDir?: string;
  /** `--session-dir`: overrides every other session folder setting. */
  sessionDir?: string;
  /** `-e` paths, resolved against the process cwd; loaded in every thread as explicitly trusted. */
  extensionPaths?: string[];
  /** Threads of a host that declares itself a terminal default to `fullAccess` approvals. */
  terminal?: boolean;
  /** How long a thread without subscribers or work stays loaded; ten minutes, or `KNIGHTCODE_THREAD_IDLE_MS`. */
  idleUnloadMs?: number;
  /** How many of a loaded thread's latest notifications are kept to replay; 5,000, or `KNIGHTCODE_REPLAY_EVENTS`. */
  replayEvents?: number;
  log?: Logger;
  env?: NodeJS.ProcessEnv;
  /** The WebSocket token and its file: never given to a child process, never read by a read-only tool. */
  secrets?: ServerSecrets;
}

/**
 * The counters `server/diagnostics` reports. Each feature that owns one
 * updates it; a feature not built yet leaves a real zero.
 */
export interface ServerCounters {
  payloadFiles: number;
  payloadBytes: number;
  inactiveFactories: number;
  listingFilesOpened: number;
  listingBytesScanned: number;
}

type Disposer = () => void | Promise<void>;

/**
 * What the whole server shares, whatever the connection: options, the log,
 * counters, and the things to cancel on shutdown (login flows among them).
 * A host creates it, builds the server on it, and disposes it on shutdown.
 */
export class ServerContext {
  readonly startedAt = Date.now();
  readonly log: Logger;
  readonly agentDir: string;
  readonly sessionDir: string | undefined;
  readonly extensionPaths: readonly string[];
  readonly terminal: boolean;
  readonly idleUnloadMs: number;
  readonly replayEvents: number;
  readonly env: NodeJS.ProcessEnv;
  readonly secrets: ServerSecrets;
  readonly counters: ServerCounters = {
    payloadFiles: 0,
    payloadBytes: 0,
    inactiveFactories: 0,
    listingFilesOpened: 0,
    listingBytesScanned: 0,
  };
  private readonly disposers: Disposer[] = [];
  private disposed: Promise<void> | undefined;
  private payloadStore: PayloadStore | undefined;
  /** Large saved turns as they last travelled, handed out again while their references live. */
  readonly savedTurns = new SavedTurnCache();

  constructor(options: ServerContextOptions = {}) {
    this.env = options.env ?? process.env;
    this.secrets = { values: [...(options.secrets?.values ?? [])], files: (options.secrets?.files ?? []).map((path) => resolve(path)) };
    this.log = options.log ?? createLogger({ level: levelFromEnv(this.env.KNIGHTCODE_LOG) });
    this.agentDir = resolve(options.agentDir ?? this.env.KNIGHTCODE_CODING_AGENT_DIR ?? join(homedir(), ".knightcode", "agent"));
    this.sessionDir = options.sessionDir === undefined ? undefined : resolve(options.sessionDir);
    this.extensionPaths = (options.extensionPaths ?? []).map((path) => resolve(path));
    this.terminal = options.terminal ?? false;
    this.idleUnloadMs = options.idleUnloadMs ?? positiveInteger(this.env.KNIGHTCODE_THREAD_IDLE_MS) ?? 10 * 60_000;
    this.replayEvents = options.replayEvents ?? positiveInteger(this.env.KNIGHTCODE_REPLAY_EVENTS) ?? 5_000;
    scheduleStaleSpoolSweep({
      onRemoved: (paths) => this.log.info(`removed stale payload spools: ${paths.join(", ")}`),
      onError: (message, error) => this.log.warn(message, error),
    });
  }

  /** The large-value spool, created on first use and removed on dispose. */
  get payloads(): PayloadStore {
    if (!this.payloadStore) {
      const store = new PayloadStore({ counters: this.counters, onError: (message, error) => this.log.warn(message, error) });
      this.payloadStore = store;
      this.onDispose(() => store.dispose());
    }
    return this.payloadStore;
  }

  get isDisposed(): boolean {
    return this.disposed !== undefined;
  }

  /** Registers cleanup for shutdown; runs at once when the context is already disposed. */
  onDispose(disposer: Disposer): void {
    if (this.disposed) {
      void Promise.resolve()
        .then(disposer)
        .catch((error: unknown) => this.log.error("cleanup failed", error));
      return;
    }
    this.disposers.push(disposer);
  }

  /** Cancels what is pending (logins, background work); safe to call twice. */
  dispose(): Promise<void> {
    this.disposed ??= (async () => {
      for (const disposer of this.disposers.splice(0).reverse()) {
        try {
          await disposer();
        } catch (error) {
          this.log.error("cleanup failed", error);
        }
      }
    })();
    return this.disposed;
  }
}

function positiveInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^[1-9][0-9]{0,9}$/.test(text)) return undefined;
  return Number(text);
}
