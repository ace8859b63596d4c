import { ToolError } from "../errors.js";
import { runLineProcess } from "@knightcode/system/process/line-run";
import type { FindSearch, FoundPaths } from "./find-builtin.js";

/** Runs fd over the search directory: paths relative to it, directories ending in `/`. */
export async function findWithFd(fd: string, search: FindSearch): Promise<FoundPaths> {
  const paths: string[] = [];
  const run = await runLineProcess({
    file: fd,
    args: fdArgs(search),
    cwd: search.dir,
    env: search.env,
    ...(search.sandbox ? { sandbox: search.sandbox } : {}),
    ...(search.signal ? { signal: search.signal } : {}),
    onLine: (line) => {
      if (line !== "") paths.push(line);
      return true;
    },
  });
  if (run.aborted) throw new ToolError("aborted", "The tool call was aborted.");
  if (run.exitCode !== 0 && !run.stopped && paths.length === 0) {
    throw new ToolError("commandFailed", `fd failed: ${run.stderr || `exit code ${run.exitCode}`}`);
  }
  return { paths, problems: run.exitCode !== 0 && run.stderr !== "" ? `fd reported errors: ${run.stderr.split("\n")[0]}` : "" };
}

/** A pattern with a slash is matched against the full path, anchored at the search directory. */
function fdArgs({ pattern, dir, maxResults }: FindSearch): string[] {
  const args = ["--glob", "--hidden", "--exclude", ".git", "--color", "never", "--max-results", String(maxResults)];
  const relative = pattern.replace(/^(\.\/)+/, "");
  if (!relative.includes("/")) return [...args, "--", relative];
  const anchored = relative.startsWith("/") ? relative : `${escapeGlob(dir)}/${relative}`;
  return [...args, "--full-path", "--", anchored];
}

function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]{}]/g, "\\$&");
}
