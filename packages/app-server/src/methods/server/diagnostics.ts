import type { Handler } from "../../rpc/handler.js";

export const handler: Handler<"server/diagnostics"> = async (_params, ctx) => {
  // Probed once per process; later calls share the answer.
  const { sandboxStatus } = await import("../../lifecycle/sandbox-status.js");
  const { kind, available, reason } = await sandboxStatus(ctx.context.env);
  const memory = process.memoryUsage();
  const counters = ctx.context.counters;
  const threads = ctx.server.threadCounts();
  return {
    rssBytes: memory.rss,
    heapBytes: memory.heapUsed,
    loadedThreads: threads.loaded,
    loadingThreads: threads.loading,
    payloadFiles: counters.payloadFiles,
    payloadBytes: counters.payloadBytes,
    inactiveFactories: counters.inactiveFactories,
    uptimeMs: Date.now() - ctx.context.startedAt,
    listingFilesOpened: counters.listingFilesOpened,
    listingBytesScanned: counters.listingBytesScanned,
    sandbox: { kind, available, ...(reason !== undefined ? { reason } : {}) },
  };
};
