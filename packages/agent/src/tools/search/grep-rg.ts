import { join } from "node:path";
import { ToolError } from "../errors.js";
import { runLineProcess } from "@knightcode/system/process/line-run";
import type { SearchTarget } from "../search-target.js";
import type { GrepSearch } from "./grep-builtin.js";
import type { LineHit } from "./scan-file.js";

interface RgEvent {
  type: string;
  data?: { path?: RgText; lines?: RgText; line_number?: number };
}

/** rg gives text as `text`, or as base64 `bytes` when it is not UTF-8. */
interface RgText {
  text?: string;
  bytes?: string;
}

/** Runs rg over the target; returns rg's complaints about paths it could not read, if any. */
export async function grepWithRg(rg: string, search: GrepSearch): Promise<string> {
  const { target, signal } = search;
  let matched = false;
  const run = await runLineProcess({
    file: rg,
    args: rgArgs(search),
    cwd: target.dir,
    env: search.env,
    ...(search.sandbox ? { sandbox: search.sandbox } : {}),
    ...(signal ? { signal } : {}),
    onLine: (json) => {
      const found = parseEvent(json, target);
      if (found === undefined) return true;
      matched ||= found.hit.kind === "match";
      return search.onLine(found.path, found.hit);
    },
  });
  if (run.aborted) throw new ToolError("aborted", "The tool call was aborted.");
  if (!matched && run.exitCode === 2 && !run.stopped) {
    const code = /regex parse error|error parsing/i.test(run.stderr) ? "invalidArgument" : "commandFailed";
    throw new ToolError(code, `rg failed: ${run.stderr || "exit code 2"}`);
  }
  return run.exitCode === 2 && run.stderr !== "" ? `rg reported errors: ${run.stderr.split("\n")[0]}` : "";
}

function rgArgs({ params, target }: GrepSearch): string[] {
  const args = ["--json", "--no-config", "--hidden"];
  if (params.ignoreCase) args.push("--ignore-case");
  if (params.literal) args.push("--fixed-strings");
  if (params.context) args.push("--context", String(params.context));
  if (params.glob !== undefined) args.push("--glob", params.glob);
  // Last, so that no glob of the model's (`*`, say) can match .git back in.
  args.push("--glob", "!.git", "-e", params.pattern);
  if (target.file !== undefined) args.push("--", target.file);
  return args;
}

/** A match or context line, with its absolute path; nothing for rg's other events and for credential files. */
function parseEvent(json: string, target: SearchTarget): { path: string; hit: LineHit } | undefined {
  let event: RgEvent;
  try {
    event = JSON.parse(json) as RgEvent;
  } catch {
    return undefined;
  }
  if ((event.type !== "match" && event.type !== "context") || event.data === undefined) return undefined;
  const path = join(target.dir, decodeText(event.data.path));
  // rg has read the file by now, but what it found goes no further.
  if (target.credentials.includes(path)) return undefined;
  const text = decodeText(event.data.lines).replace(/\r?\n$/, "");
  return { path, hit: { kind: event.type, line: event.data.line_number ?? 0, text } };
}

function decodeText(field: RgText | undefined): string {
  if (field?.text !== undefined) return field.text;
  if (field?.bytes !== undefined) return Buffer.from(field.bytes, "base64").toString("utf8");
  return "";
}
