import type { AgentTool } from "@mariozechner/pi-agent-core";
import { join } from "node:path";
import { Type, type Static } from "typebox";
import { displayPath, toolEnv, type ToolContext } from "./context.js";
import { throwIfAborted, ToolError } from "./errors.js";
import { compareNames, MAX_OUTPUT_BYTES } from "./format.js";
import { requireExecutable, runLineProcess } from "./line-process.js";
import { searchTarget } from "./search-target.js";

const DEFAULT_LIMIT = 1000;
const MAX_LIMIT = 5000;

const findParameters = Type.Object({
  pattern: Type.String({
    description: "Glob for the paths to find: '*.ts' matches file names at any depth; a pattern with '/' such as 'src/**/*.test.ts' matches paths below the search directory.",
  }),
  path: Type.Optional(Type.String({ description: "Directory to search (default: the working directory)." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `Most results to return (default ${DEFAULT_LIMIT}).` })),
});

export type FindParams = Static<typeof findParameters>;

export interface FindDetails {
  count: number;
  truncated: boolean;
}

const DESCRIPTION = `Find files and directories by glob with fd. Results are sorted, relative to the working directory, \
directories ending in '/'. Files git ignores (.gitignore) are skipped; hidden files are included, .git is not. \
Returns at most ${DEFAULT_LIMIT} results by default (limit up to ${MAX_LIMIT}) and ${MAX_OUTPUT_BYTES / 1024} KiB.`;

export function createFindTool(ctx: ToolContext): AgentTool<typeof findParameters, FindDetails> {
  return {
    name: "find",
    label: "Find",
    description: DESCRIPTION,
    parameters: findParameters,
    executionMode: "parallel",
    execute: async (_toolCallId, params, signal) => {
      throwIfAborted(signal);
      const env = toolEnv(ctx);
      const fd = await requireExecutable(["fd", "fdfind"], env, "fd is not installed or not on PATH (Debian calls it fdfind); use bash (find) instead.");
      const target = await searchTarget(ctx, params.path, false);
      const limit = params.limit ?? DEFAULT_LIMIT;
      const found: string[] = [];
      const run = await runLineProcess({
        file: fd,
        args: fdArgs(params.pattern, target.dir, limit + 1),
        cwd: target.dir,
        env,
        ...(signal ? { signal } : {}),
        onLine: (line) => {
          if (line !== "") found.push(line);
          return true;
        },
      });
      if (run.exitCode !== 0 && !run.stopped && found.length === 0) {
        throw new ToolError("commandFailed", `fd failed: ${run.stderr || `exit code ${run.exitCode}`}`);
      }
      return render(ctx, target.dir, found, limit);
    },
  };
}

/** A pattern with a slash is matched against the full path, anchored at the search directory. */
function fdArgs(pattern: string, dir: string, maxResults: number): string[] {
  const args = ["--glob", "--hidden", "--exclude", ".git", "--color", "never", "--max-results", String(maxResults)];
  const relative = pattern.replace(/^(\.\/)+/, "");
  if (!relative.includes("/")) return [...args, "--", relative];
  const anchored = relative.startsWith("/") ? relative : `${escapeGlob(dir)}/${relative}`;
  return [...args, "--full-path", "--", anchored];
}

function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]{}]/g, "\\$&");
}

function render(ctx: ToolContext, dir: string, found: string[], limit: number) {
  const more = found.length > limit;
  const paths = found
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
  return { content: [{ type: "text" as const, text }], details: { count: lines.length, truncated } };
}
