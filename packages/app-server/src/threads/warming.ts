import { warmEngine } from "@knightcode/agent/models/engine";
import type { ModelRegistry } from "@knightcode/agent/models/registry";
import { warmDefaultModel, warmThreadLayer } from "@knightcode/agent/thread/warm-up";
import type { Logger } from "../host/log.js";

/**
 * When a thread manager's parts warm. The thread layer (engine, agent run,
 * the manager's own thread parts) warms when the host asks, a step at a
 * time whenever `idle` says it is free. The default model's provider and a
 * request through it are the heaviest part: they warm once a thread opens,
 * and only on a host that warms at all, so a client that opens no thread
 * leaves the server without them. The sandbox's probe (one bwrap run,
 * which a new thread's warning waits for) begins with the thread layer's
 * warm-up, or with a thread that opens before it and will want the
 * sandbox: then it runs while that thread loads, not after.
 */
export class Warming {
  /** Set once the host asks for the warm-up: what says the server is free. */
  private idle: (() => Promise<void>) | undefined;
  private threadOpened = false;
  private modelWarming = false;

  constructor(private readonly model: { agentDir: string; registry: () => ModelRegistry; log: Logger; sandbox: () => Promise<unknown> }) {}

  /** `parts` first, then the thread layer, with the sandbox's probe meanwhile; the model too if a thread opened before the warm-up began. */
  async threadLayer(idle: () => Promise<void>, parts: () => Promise<unknown>): Promise<void> {
    this.idle = idle;
    const meanwhile = this.model.sandbox();
    await parts();
    const { agentDir, registry } = this.model;
    await warmThreadLayer({ agentDir, registry: registry(), idle });
    if (this.threadOpened) this.warmModel();
    await meanwhile;
  }

  /** A thread is opening: the engine loads now if it has not yet, the default model (and, for a thread that wants it, the sandbox's probe) in the background. */
  threadOpening(probeSandbox = false): void {
    warmEngine();
    if (probeSandbox) this.model.sandbox().catch((error: unknown) => this.model.log.warn("probing the sandbox failed", error));
    this.threadOpened = true;
    this.warmModel();
  }

  private warmModel(): void {
    const idle = this.idle;
    if (idle === undefined || this.modelWarming) return;
    this.modelWarming = true;
    const { agentDir, registry, log } = this.model;
    warmDefaultModel({ agentDir, registry: registry(), idle }).catch((error: unknown) => log.warn("warming the default model failed", error));
  }
}
