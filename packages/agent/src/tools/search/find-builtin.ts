import type { SandboxLaunch } from "@knightcode/system/process/sandbox/command";
import { sep } from "node:path";
import { throwIfAborted } from "../errors.js";
import { findPattern, slashPath } from "./globs.js";
import { Problems } from "./problems.js";
import { walk } from "./walk.js";

export interface FindSearch {
  dir: string;
  pattern: string;
  /** Stop after this many paths, as fd --max-results does (in the order found, before sorting). */
  maxResults: number;
  env: NodeJS.ProcessEnv;
  /** The sandbox rg or fd runs in; the in-process search needs none. */
  sandbox?: SandboxLaunch;
  signal?: AbortSignal;
}

export interface FoundPaths {
  /** Relative to the search directory, directories ending in `/`. */
  paths: string[];
  /** A note about paths that could not be read, or "". */
  problems: string;
}

/** Lists what the pattern matches below the directory, in this process, skipping what ignore files skip. */
export async function findInProcess(search: FindSearch): Promise<FoundPaths> {
  const matches = findPattern(search.pattern);
  const prefix = search.dir.length + (search.dir.endsWith(sep) ? 0 : 1);
  const problems = new Problems();
  const paths: string[] = [];
  try {
    for await (const entry of walk(search.dir, {
      ...(search.signal ? { signal: search.signal } : {}),
      keep: (entry, rules) => !rules.isIgnored(entry.path, entry.dirent.isDirectory()),
      onError: (error) => problems.add(error),
    })) {
      const relative = slashPath(entry.path.slice(prefix));
      if (!matches(relative, entry.path, entry.name)) continue;
      paths.push(entry.dirent.isDirectory() ? `${relative}/` : relative);
      if (paths.length >= search.maxResults) break;
    }
  } catch (error) {
    throwIfAborted(search.signal);
    throw error;
  }
  return { paths, problems: problems.note() };
}
