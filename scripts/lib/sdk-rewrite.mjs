/**
 * An esbuild plugin that rewrites one module of each model SDK we bundle
 * (openai, @anthropic-ai/sdk), exactly: `rewrite` throws when the text is
 * not the one it was written for, and the build fails as well when either
 * SDK's module was bundled without the rewrite (moved, renamed), so an
 * upgrade cannot undo a fix in silence. `module` is the module's path
 * within the SDK, such as "core/streaming.mjs".
 */
export function sdkRewritePlugin({ name, module, rewrite, why }) {
  const filter = sdkModuleFilter(module);
  return {
    name,
    setup(b) {
      const rewritten = new Set();
      b.onStart(() => rewritten.clear());
      b.onLoad({ filter }, async (args) => {
        const { readFile } = await import("node:fs/promises");
        const contents = rewrite(await readFile(args.path, "utf8"), args.path);
        rewritten.add(/[\\/]@anthropic-ai[\\/]/.test(args.path) ? "@anthropic-ai/sdk" : "openai");
        return { contents, loader: "js" };
      });
      b.onEnd((result) => {
        if (result.errors.length > 0) return;
        const missed = ["openai", "@anthropic-ai/sdk"].filter((sdk) => !rewritten.has(sdk));
        if (missed.length > 0) throw new Error(`${missed.join(" and ")}: ${module} was bundled without the rewrite; update ${why}`);
      });
    },
  };
}

/** `text` with `theirs`, found exactly once, replaced by `ours`, and `preamble` put first; throws naming `why` otherwise. */
export function replaceOnce(text, path, { theirs, ours, preamble, what, why }) {
  const at = text.indexOf(theirs);
  if (at === -1 || text.indexOf(theirs, at + 1) !== -1) throw new Error(`${path}: ${what} changed; update ${why}`);
  return preamble + text.slice(0, at) + ours + text.slice(at + theirs.length);
}

/** What matches `module` (a path such as "core/streaming.mjs") in either SDK's folder, with either separator. */
export function sdkModuleFilter(module) {
  const path = module
    .split("/")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[\\\\/]");
  return new RegExp(`(?:[\\\\/]openai|[\\\\/]@anthropic-ai[\\\\/]sdk)[\\\\/]${path}$`);
}
