import type { AgentTool } from "@mariozechner/pi-agent-core";
import { join } from "node:path";
import { Type, type Static } from "typebox";
import { displayPath, toolEnv, type ToolContext } from "./context.js";
import { throwIfAborted } from "./errors.js";
import { compareNames, MAX_OUTPUT_BYTES } from "./format.js";
import { externalSearch, type ExternalSearch, type SearchToolOptions } from "./search/engine.js";
import type { FindSearch, FoundPaths } from "./search/find-builtin.js";
import { findWithFd } from "./search/find-fd.js";
import { searchTarget } from "./search-target.js";

const DEFAULT_LIMIT = 1000;
const MAX_LIMIT = 5000;

const findParameters = Type.Object({
  pattern: Type.String({
    description:
      "Glob for the paths to find: '*.ts' matches file names at any depth; a pattern with '/' such as 'src/**/*.test.ts' matches paths below the search directory.",
  }),
  path: Type.Optional(Type.String({ description: "Directory to search (default: the working directory)." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `Most results to return (default ${DEFAULT_LIMIT}).` })),
});

export type FindParams = Static<typeof findParameters>;

export interface FindDetails {
  count: number;
  truncated: boolean;
}

const DESCRIPTION = `Find files and directories by glob. Results are sorted, relative to the working directory, \
directories ending in '/'. Files that .gitignore or .ignore files exclude are skipped; hidden files are included, .git is not. \
Uses fd when installed, else a built-in search with the same results. \
Returns at most ${DEFAULT_LIMIT} results by default (limit up to ${MAX_LIMIT}) and ${MAX_OUTPUT_BYTES / 1024} KiB.`;

export function createFindTool(ctx: ToolContext, options: SearchToolOptions = {}): AgentTool<typeof findParameters, FindDetails> {
  return {
    name: "find",
    label: "Find",
    description: DESCRIPTION,
    parameters: findParameters,
    executionMode: "parallel",
    execute: async (toolCallId, params, signal) => {
      throwIfAborted(signal);
      const env = toolEnv(ctx);
      const target = await searchTarget(ctx, params.path, false);
      const limit = params.limit ?? DEFAULT_LIMIT;
      const search: FindSearch = { dir: target.dir, pattern: params.pattern, maxResults: limit + 1, env, ...(signal ? { signal } : {}) };
      const found = await find(await externalSearch(ctx, { callId: toolCallId, dir: target.dir, options, names: ["fd", "fdfind"], env }), search);
      return render(ctx, target.dir, found, limit);
    },
  };
}

/** Runs fd when given, else the in-process search. */
async function find(fd: ExternalSearch | undefined, search: FindSearch): Promise<FoundPaths> {
  if (fd !== undefined) return findWithFd(fd.program, { ...search, ...(fd.sandbox ? { sandbox: fd.sandbox } : {}) });
  // Loaded on first use, so that a thread starts without the walker and glob libraries.
  const { findInProcess } = await import("./search/find-builtin.js");
  return findInProcess(search);
}

function render(ctx: ToolContext, dir: string, found: FoundPaths, limit: number) {
  const more = found.paths.length > limit;
  const paths = found.paths
    .slice(0, limit)
    .map((line) => {
      const isDir = line.endsWith("/");
      const shown = displayPath(ctx, join(dir, line));
      return isDir && !shown.endsWith("/") ? `${shown}/` : shown;
    })
    .sort(compareNames);
  if (paths.length === 0) return { content: [{ type: "text" as const, text: "No files found." }], details: { count: 0, truncated: false } };
  const lines: string[] = [];
  let bytes = 0;
  for (const path of paths) {
    bytes += Buffer.byteLength(path) + 1;
    if (bytes > MAX_OUTPUT_BYTES) break;
    lines.push(path);
  }
  let text = lines.join("\n");
  const truncated = more || lines.length < paths.length;
  if (truncated) text += `\n\n[Showing ${lines.length} results; there are more. Narrow the pattern or path${more ? ", or raise limit" : ""}.]`;
  if (found.problems !== "") text += `\n\n[${found.problems}]`;
  return { content: [{ type: "text" as const, text }], details: { count: lines.length, truncated } };
}
