import type { AgentTool } from "@mariozechner/pi-agent-core";
import { join } from "node:path";
import { Type, type Static } from "typebox";
import { displayPath, toolEnv, type ToolContext } from "./context.js";
import { throwIfAborted, ToolError } from "./errors.js";
import { cutLine, MAX_OUTPUT_BYTES } from "./format.js";
import { requireExecutable, runLineProcess } from "./line-process.js";
import { searchTarget } from "./search-target.js";

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
const MAX_CONTEXT = 10;
const MAX_MATCH_LINE_CHARS = 500;

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

export interface GrepDetails {
  matches: number;
  truncated: boolean;
}

const DESCRIPTION = `Search file contents with ripgrep. Matches come back as path:line: text (context lines as path-line- text), \
paths relative to the working directory. Files git ignores (.gitignore) are skipped; hidden files are searched, .git is not. \
Returns at most ${DEFAULT_LIMIT} matches by default (limit up to ${MAX_LIMIT}) and ${MAX_OUTPUT_BYTES / 1024} KiB; \
lines are cut at ${MAX_MATCH_LINE_CHARS} characters.`;

export function createGrepTool(ctx: ToolContext): AgentTool<typeof grepParameters, GrepDetails> {
  return {
    name: "grep",
    label: "Grep",
    description: DESCRIPTION,
    parameters: grepParameters,
    executionMode: "parallel",
    execute: async (_toolCallId, params, signal) => {
      throwIfAborted(signal);
      const env = toolEnv(ctx);
      const rg = await requireExecutable(["rg"], env, "ripgrep (rg) is not installed or not on PATH; search with bash (grep -rn) instead.");
      const target = await searchTarget(ctx, params.path, true);
      const printer = new MatchPrinter(ctx, target.dir, params);
      const run = await runLineProcess({
        file: rg,
        args: rgArgs(params, target.file),
        cwd: target.dir,
        env,
        ...(signal ? { signal } : {}),
        onLine: (line) => printer.add(line),
      });
      if (printer.matches === 0 && run.exitCode === 2 && !run.stopped) {
        const code = /regex parse error|error parsing/i.test(run.stderr) ? "invalidArgument" : "commandFailed";
        throw new ToolError(code, `rg failed: ${run.stderr || "exit code 2"}`);
      }
      return { content: [{ type: "text", text: printer.finish(run.exitCode === 2 ? run.stderr : "") }], details: printer.details() };
    },
  };
}

function rgArgs(params: GrepParams, file: string | undefined): string[] {
  const args = ["--json", "--no-config", "--hidden", "--glob", "!.git"];
  if (params.ignoreCase) args.push("--ignore-case");
  if (params.literal) args.push("--fixed-strings");
  if (params.context) args.push("--context", String(params.context));
  if (params.glob !== undefined) args.push("--glob", params.glob);
  args.push("-e", params.pattern);
  if (file !== undefined) args.push("--", file);
  return args;
}

interface RgLine {
  type: string;
  data?: { path?: { text?: string; bytes?: string }; lines?: { text?: string; bytes?: string }; line_number?: number };
}

/** Turns rg's JSON events into bounded text, counting matches. */
class MatchPrinter {
  matches = 0;
  private lines: string[] = [];
  private bytes = 0;
  private moreMatches = false;
  private byteLimited = false;
  private cutLines = 0;
  private last: { path: string; line: number } | undefined;
  private readonly limit: number;

  constructor(
    private readonly ctx: ToolContext,
    private readonly dir: string,
    private readonly params: GrepParams,
  ) {
    this.limit = params.limit ?? DEFAULT_LIMIT;
  }

  /** False once no more output is wanted. */
  add(json: string): boolean {
    let event: RgLine;
    try {
      event = JSON.parse(json) as RgLine;
    } catch {
      return true;
    }
    if ((event.type !== "match" && event.type !== "context") || event.data === undefined) return true;
    if (event.type === "match" && this.matches >= this.limit) {
      this.moreMatches = true;
      return false;
    }
    const path = displayPath(this.ctx, join(this.dir, decodeField(event.data.path)));
    const number = event.data.line_number ?? 0;
    const adjoins = this.last !== undefined && this.last.path === path && this.last.line + 1 === number;
    // Past the limit, only the trailing context of the last match is wanted, not the leading context of the next.
    if (this.matches >= this.limit && !adjoins) return true;
    if (this.params.context && this.last !== undefined && !adjoins) this.push("--");
    const { text, cut } = cutLine(decodeField(event.data.lines).replace(/\r?\n$/, ""), MAX_MATCH_LINE_CHARS);
    if (cut) this.cutLines++;
    const separator = event.type === "match" ? ":" : "-";
    if (!this.push(`${path}${separator}${number}${separator} ${text}`)) return false;
    if (event.type === "match") this.matches++;
    this.last = { path, line: number };
    return true;
  }

  finish(rgErrors: string): string {
    if (this.matches === 0) return "No matches found.";
    let text = this.lines.join("\n");
    if (this.moreMatches) text += `\n\n[Stopped at ${this.limit} matches; narrow the pattern or path, or raise limit.]`;
    if (this.byteLimited) text += `\n\n[Output stopped at ${MAX_OUTPUT_BYTES / 1024} KiB; narrow the pattern or path.]`;
    if (this.cutLines > 0) text += `\n\n[${this.cutLines} line(s) cut at ${MAX_MATCH_LINE_CHARS} characters.]`;
    if (rgErrors !== "") text += `\n\n[rg reported errors: ${rgErrors.split("\n")[0]}]`;
    return text;
  }

  details(): GrepDetails {
    return { matches: this.matches, truncated: this.moreMatches || this.byteLimited };
  }

  private push(line: string): boolean {
    const size = Buffer.byteLength(line) + 1;
    if (this.bytes + size > MAX_OUTPUT_BYTES) {
      this.byteLimited = true;
      return false;
    }
    this.lines.push(line);
    this.bytes += size;
    return true;
  }
}

/** rg gives text as `text`, or as base64 `bytes` when it is not UTF-8. */
function decodeField(field: { text?: string; bytes?: string } | undefined): string {
  if (field?.text !== undefined) return field.text;
  if (field?.bytes !== undefined) return Buffer.from(field.bytes, "base64").toString("utf8");
  return "";
}
