/**
 * The OpenAI and Anthropic SDKs split a streamed response into events in
 * `iterSSEChunks`: after each event they copy what is left of the buffer
 * (`data.slice`). A network chunk holding n events is copied n times, so
 * the work grows with the square of the chunk: a model that answers faster
 * than we read, or a connection that catches up after a stall, hands over
 * 64 KiB of a few hundred events at once. With fifty replies streaming, that
 * copying took a sixth of the server's time. A view (`subarray`) instead of
 * a copy makes it linear; the event handed on is still a copy of its own
 * (`data.slice(0, patternIndex)` just above), so nothing else changes.
 *
 * The rewrite is exact: the build fails if the SDK's text is not there
 * once, so an upgrade that changes it cannot slip through unchanged.
 */
export const SSE_STREAMING_MODULE = /(?:[\\/]openai|[\\/]@anthropic-ai[\\/]sdk)[\\/]core[\\/]streaming\.mjs$/;

const COPY_THE_REST = "data = data.slice(patternIndex);";
const VIEW_THE_REST = "data = data.subarray(patternIndex);";

/** The module's text with the rest of the buffer viewed, not copied; throws when the text is not the one this was written for. */
export function linearSseChunks(text, path) {
  const at = text.indexOf(COPY_THE_REST);
  if (at === -1 || text.indexOf(COPY_THE_REST, at + 1) !== -1 || !/async function\* iterSSEChunks\(/.test(text.slice(0, at))) {
    throw new Error(`${path}: iterSSEChunks changed; update scripts/lib/sse-chunks.mjs`);
  }
  return text.slice(0, at) + VIEW_THE_REST + text.slice(at + COPY_THE_REST.length);
}

/**
 * The esbuild plugin applying it to both SDKs. The build fails as well when
 * either SDK's module was bundled without the rewrite (moved, renamed): the
 * fix must not disappear in silence.
 */
export const sseChunksPlugin = {
  name: "sse-chunks-linear",
  setup(b) {
    const rewritten = new Set();
    b.onStart(() => rewritten.clear());
    b.onLoad({ filter: SSE_STREAMING_MODULE }, async (args) => {
      const { readFile } = await import("node:fs/promises");
      const contents = linearSseChunks(await readFile(args.path, "utf8"), args.path);
      rewritten.add(/[\\/]@anthropic-ai[\\/]/.test(args.path) ? "@anthropic-ai/sdk" : "openai");
      return { contents, loader: "js" };
    });
    b.onEnd((result) => {
      if (result.errors.length > 0) return;
      const missed = ["openai", "@anthropic-ai/sdk"].filter((sdk) => !rewritten.has(sdk));
      if (missed.length > 0) throw new Error(`${missed.join(" and ")}: core/streaming.mjs was bundled without the rewrite; update scripts/lib/sse-chunks.mjs`);
    });
  },
};
