import type { AgentTool } from "@mariozechner/pi-agent-core";
import { Type, type Static } from "typebox";
import { displayPath, toolEnv, type ToolContext } from "./context.js";
import { throwIfAborted } from "./errors.js";
import { MAX_OUTPUT_BYTES } from "./format.js";
import { externalSearch, type ExternalSearch, type SearchToolOptions } from "./search/engine.js";
import type { GrepSearch } from "./search/grep-builtin.js";
import { grepWithRg } from "./search/grep-rg.js";
import { MatchPrinter, MAX_MATCH_LINE_CHARS, type GrepDetails } from "./search/match-printer.js";
import { MAX_SEARCHED_LINE_CHARS } from "./search/scan-file.js";
import { searchTarget } from "./search-target.js";

export type { GrepDetails } from "./search/match-printer.js";

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
const MAX_CONTEXT = 10;

const grepParameters = Type.Object({
  pattern: Type.String({ description: "Regular expression (Rust regex syntax), or plain text with literal: true." }),
  path: Type.Optional(Type.String({ description: "Directory or file to search (default: the working directory)." })),
  glob: Type.Optional(Type.String({ description: "Only search files matching this glob, e.g. '*.ts' or 'src/**/*.py'." })),
  ignoreCase: Type.Optional(Type.Boolean({ description: "Match case-insensitively." })),
  literal: Type.Optional(Type.Boolean({ description: "Treat pattern as plain text, not a regular expression." })),
  context: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CONTEXT, description: "Lines of context around each match." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `Most matches to return (default ${DEFAULT_LIMIT}).` })),
});

export type GrepParams = Static<typeof grepParameters>;

const DESCRIPTION = `Search file contents for a regular expression, line by line. Matches come back as path:line: text \
(context lines as path-line- text), paths relative to the working directory. Files that .gitignore or .ignore files exclude \
are skipped unless glob names them; hidden files are searched, .git, binary files, KnightCode's credential files and /proc/<pid>/environ, cmdline and mem are not. \
Uses ripgrep when installed, else a built-in search with the same results: keep to regex syntax both share \
(no lookaround or backreferences); the built-in search skips lines over ${MAX_SEARCHED_LINE_CHARS / (1024 * 1024)} MiB. \
Returns at most ${DEFAULT_LIMIT} matches by default (limit up to ${MAX_LIMIT}) and ${MAX_OUTPUT_BYTES / 1024} KiB; \
lines are cut at ${MAX_MATCH_LINE_CHARS} characters.`;

export function createGrepTool(ctx: ToolContext, options: SearchToolOptions = {}): AgentTool<typeof grepParameters, GrepDetails> {
  return {
    name: "grep",
    label: "Grep",
    description: DESCRIPTION,
    parameters: grepParameters,
    executionMode: "parallel",
    execute: async (toolCallId, params, signal) => {
      throwIfAborted(signal);
      const env = toolEnv(ctx);
      const target = await searchTarget(ctx, params.path, true);
      const limit = params.limit ?? DEFAULT_LIMIT;
      const printer = new MatchPrinter(limit, params.context ?? 0);
      const search: GrepSearch = {
        target,
        params,
        limit,
        env,
        ...(signal ? { signal } : {}),
        onLine: (path, hit) => printer.add(displayPath(ctx, path), hit),
      };
      const problems = await grep(await externalSearch(ctx, { callId: toolCallId, dir: target.dir, options, names: ["rg"], env }), search);
      return { content: [{ type: "text", text: printer.finish(problems) }], details: printer.details() };
    },
  };
}

/** Runs rg when given, else the in-process search; returns a note about paths that could not be read. */
async function grep(rg: ExternalSearch | undefined, search: GrepSearch): Promise<string> {
  if (rg !== undefined) return grepWithRg(rg.program, { ...search, ...(rg.sandbox ? { sandbox: rg.sandbox } : {}) });
  // Loaded on first use, so that a thread starts without the walker and glob libraries.
  const { grepInProcess } = await import("./search/grep-builtin.js");
  return grepInProcess(search);
}
