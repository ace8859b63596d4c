import { stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { displayPath, resolveToolPath, type ToolContext } from "./context.js";
import { CredentialFiles } from "./credential-files.js";
import { errnoCode, ToolError } from "./errors.js";

/** Where a search runs: `dir` as the child's cwd, and the one file to search when the path named a file. */
export interface SearchTarget {
  dir: string;
  file?: string;
  shown: string;
  /** The files the read-only tools refuse (credential files, the token file, /proc secrets), which a search of `dir` passes over. */
  credentials: CredentialFiles;
}

export async function searchTarget(ctx: ToolContext, path: string | undefined, allowFile: boolean): Promise<SearchTarget> {
  const absolute = resolveToolPath(ctx, path ?? ".");
  const shown = displayPath(ctx, absolute);
  let info;
  try {
    info = await stat(absolute);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") throw new ToolError("notFound", `Path not found: ${shown}`);
    throw new ToolError("ioError", `Cannot access ${shown}: ${(error as Error).message}`);
  }
  const credentials = CredentialFiles.of(ctx);
  if (info.isDirectory()) return { dir: absolute, shown, credentials };
  credentials.refuse(absolute, shown);
  if (!allowFile) throw new ToolError("notADirectory", `${shown} is not a directory.`);
  // rg would wait on a FIFO for a writer, and read a device without end.
  if (!info.isFile()) throw new ToolError("notAFile", `${shown} is not a regular file or a directory.`);
  return { dir: dirname(absolute), file: basename(absolute), shown, credentials };
}
