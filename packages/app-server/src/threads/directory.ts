import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { rpcError } from "../rpc/errors.js";

/** A project folder a client named: an existing directory, or invalidParams naming the field. */
export function requireDirectory(cwd: string, field = "params.cwd"): string {
  if (!isAbsolute(cwd)) throw rpcError("invalidParams", `${field} must be an absolute path`);
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) throw rpcError("invalidParams", `${field} is not an existing directory: ${cwd}`);
  return resolve(cwd);
}
