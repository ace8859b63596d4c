import type { AgentTool } from "@mariozechner/pi-agent-core";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { Type, type Static } from "typebox";
import type { ToolContext } from "./context.js";
import { fileSystemError, throwIfAborted } from "./errors.js";
import { compareNames, MAX_OUTPUT_BYTES } from "./format.js";
import { searchTarget } from "./search-target.js";

const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 5000;

const lsParameters = Type.Object({
  path: Type.Optional(Type.String({ description: "Directory to list (default: the working directory)." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `Most entries to return (default ${DEFAULT_LIMIT}).` })),
});

export type LsParams = Static<typeof lsParameters>;

export interface LsDetails {
  count: number;
  truncated: boolean;
}

const DESCRIPTION = `List a directory: one entry per line, sorted by name, dotfiles included, directories ending in '/'. \
Not recursive (use find for that). Returns at most ${DEFAULT_LIMIT} entries by default (limit up to ${MAX_LIMIT}) and ${MAX_OUTPUT_BYTES / 1024} KiB.`;

export function createLsTool(ctx: ToolContext): AgentTool<typeof lsParameters, LsDetails> {
  return {
    name: "ls",
    label: "List",
    description: DESCRIPTION,
    parameters: lsParameters,
    executionMode: "parallel",
    execute: async (_toolCallId, params, signal) => {
      throwIfAborted(signal);
      const target = await searchTarget(ctx, params.path, false);
      let names: string[];
      try {
        names = await entryNames(target.dir);
      } catch (error) {
        throw fileSystemError(error, target.shown, "list");
      }
      if (names.length === 0) return { content: [{ type: "text", text: "(empty directory)" }], details: { count: 0, truncated: false } };
      const limit = params.limit ?? DEFAULT_LIMIT;
      const lines: string[] = [];
      let bytes = 0;
      for (const name of names.slice(0, limit)) {
        bytes += Buffer.byteLength(name) + 1;
        if (bytes > MAX_OUTPUT_BYTES) break;
        lines.push(name);
      }
      let text = lines.join("\n");
      const truncated = lines.length < names.length;
      if (truncated) text += `\n\n[Showing ${lines.length} of ${names.length} entries. Use find to search, or raise limit.]`;
      return { content: [{ type: "text", text }], details: { count: lines.length, truncated } };
    },
  };
}

/** Sorted names, a '/' after directories and after links to directories. */
async function entryNames(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = await Promise.all(
    entries.map(async (entry) => {
      let isDir = entry.isDirectory();
      if (entry.isSymbolicLink())
        isDir = await stat(join(dir, entry.name)).then(
          (info) => info.isDirectory(),
          () => false,
        );
      return isDir ? `${entry.name}/` : entry.name;
    }),
  );
  return names.sort(compareNames);
}
