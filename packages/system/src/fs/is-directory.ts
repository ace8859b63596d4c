import { statSync } from "node:fs";

/** Whether `path` is an existing folder (through symbolic links); any failure to look counts as no. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
