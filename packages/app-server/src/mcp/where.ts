import { requireDirectory } from "../threads/directory.js";

/** The project part of an mcp.json edit: none, or a folder that exists. */
export function where(cwd: string | undefined): { cwd?: string } {
  return cwd === undefined ? {} : { cwd: requireDirectory(cwd) };
}
