import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { isDirectory } from "@knightcode/system/fs/is-directory";
import { writeFileAtomic } from "@knightcode/system/fs/atomic-write";
import { LockHeldError } from "@knightcode/system/fs/file-lock";
import { withFileLock } from "@knightcode/system/fs/file-queue";
import { editJsonText } from "@knightcode/system/fs/json-edit";
import { resolveWriteTarget } from "@knightcode/system/fs/json-file";
import { isPlainObject, type SettingsObject } from "../settings/keys.js";
import { isTrusted, type TrustInput } from "../settings/scope.js";
import { checkServerName, parseServerEntry, type McpExposure, type McpScope } from "./config.js";
import { globalMcpPath, listMcpServers, projectMcpPath, readMcpFile } from "./files.js";

export type McpConfigErrorCode =
  /** A bad name, entry or change; `auth` in a project file. */
  | "invalid"
  /** `update` of a name no file in reach defines. */
  | "unknownServer"
  /** A project write without cwd, or for a folder that is not an explicitly trusted project. */
  | "untrusted"
  | "missingCwd"
  /** The file is not `{"mcpServers": {...}}` JSON and is never overwritten. */
  | "corrupt"
  /** Reading, locking or writing failed. */
  | "io";

/** The one error of the MCP configuration; the server maps `code` to a protocol error. */
export class McpConfigError extends Error {
  override readonly name = "McpConfigError";

  constructor(
    readonly code: McpConfigErrorCode,
    message: string,
    readonly data: { path?: string; reason?: "untrusted" | "missingCwd" } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface McpFileTarget {
  agentDir: string;
  scope: McpScope;
  cwd?: string;
  /** A project write needs an explicit true. */
  trust: TrustInput;
}

function targetPath(target: McpFileTarget): string {
  if (target.scope === "global") return globalMcpPath(target.agentDir);
  const cwd = target.cwd;
  if (cwd === undefined || !isDirectory(cwd)) {
    throw new McpConfigError("missingCwd", cwd === undefined ? "a project write needs cwd" : `${cwd} is not an existing directory`, { reason: "missingCwd" });
  }
  if (!isTrusted(target.trust, cwd)) {
    throw new McpConfigError("untrusted", `${cwd} is not a trusted project; trust it before changing its MCP servers`, { reason: "untrusted", path: cwd });
  }
  return projectMcpPath(cwd);
}

function requireName(name: string): void {
  const bad = checkServerName(name);
  if (bad) throw new McpConfigError("invalid", bad);
}

/**
 * Edits one mcp.json under the per-file queue and the cross-process lock:
 * read, change, write atomically as 0600 (entries hold headers and
 * environments, which are often secrets). A corrupt file is refused and left
 * as it is; an edit that changes nothing writes nothing.
 */
async function editMcpFile<T>(path: string, scope: McpScope, edit: (servers: SettingsObject) => { result: T; changed: boolean }): Promise<T> {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const file = resolveWriteTarget(path);
    return await withFileLock(file, { purpose: "mcp" }, () => {
      const current = readMcpFile(file, scope);
      if (current.corrupt) {
        const first = current.warnings[0];
        const where = first?.line === undefined ? "" : ` at line ${first.line}, column ${first.column}`;
        throw new McpConfigError(
          "corrupt",
          `${path} is not a valid mcp.json (${first?.message ?? "unreadable"}${where}); fix or remove it by hand, it is never overwritten`,
          { path },
        );
      }
      const doc: SettingsObject = current.doc ?? {};
      const before: unknown = JSON.parse(JSON.stringify(doc));
      const servers = isPlainObject(doc.mcpServers) ? doc.mcpServers : {};
      const { result, changed } = edit(servers);
      if (changed) {
        doc.mcpServers = servers;
        writeFileAtomic(file, editJsonText(current.text, before, doc), { mode: 0o600, keepExistingMode: false, durable: true });
      }
      return result;
    });
  } catch (error) {
    const fromSystem = error instanceof LockHeldError || typeof (error as NodeJS.ErrnoException | undefined)?.syscall === "string";
    if (!fromSystem) throw error;
    throw new McpConfigError("io", `cannot write ${path}: ${(error as Error).message}`, { path }, { cause: error });
  }
}

/** Adds or replaces a server entry; answers whether one of that name was there. */
export async function addMcpServer(target: McpFileTarget, name: string, config: unknown): Promise<{ replaced: boolean; path: string }> {
  requireName(name);
  const checked = parseServerEntry(config, target.scope);
  if (!checked.ok) throw new McpConfigError("invalid", `config: ${checked.message}`);
  const path = targetPath(target);
  const replaced = await editMcpFile(path, target.scope, (servers) => {
    const had = Object.hasOwn(servers, name);
    servers[name] = checked.entry as unknown as SettingsObject;
    return { result: had, changed: true };
  });
  return { replaced, path };
}

/** Removes a server entry; answers whether there was one. */
export async function removeMcpServer(target: McpFileTarget, name: string): Promise<{ removed: boolean; path: string }> {
  requireName(name);
  const path = targetPath(target);
  const removed = await editMcpFile(path, target.scope, (servers) => {
    if (!Object.hasOwn(servers, name)) return { result: false, changed: false };
    delete servers[name];
    return { result: true, changed: true };
  });
  return { removed, path };
}

export interface McpServerChange {
  enabled?: boolean;
  exposure?: McpExposure;
}

/**
 * Changes a listed server's `enabled` or `exposure` where `/mcp` would: in
 * the trusted project's file when it overrides the server, else in the file
 * that defines it.
 */
export async function updateMcpServer(
  options: { agentDir: string; cwd?: string; trust: TrustInput },
  name: string,
  change: McpServerChange,
): Promise<{ path: string }> {
  requireName(name);
  if (change.enabled === undefined && change.exposure === undefined) throw new McpConfigError("invalid", "give enabled or exposure to change");
  const listing = listMcpServers(options);
  const server = listing.servers.find((s) => s.name === name);
  if (!server)
    throw new McpConfigError(
      "unknownServer",
      `no MCP server named ${name} in ${listing.paths.project ? `${listing.paths.global} or a trusted ${listing.paths.project}` : listing.paths.global}`,
    );
  const inProject = server.override !== undefined || server.scope === "project";
  const path = inProject ? targetPath({ ...options, scope: "project" }) : globalMcpPath(options.agentDir);
  await editMcpFile(path, inProject ? "project" : "global", (servers) => {
    const entry = servers[name];
    // The entry went between the listing and the lock: the change has nowhere to go.
    if (!isPlainObject(entry)) throw new McpConfigError("unknownServer", `${path} no longer defines ${name}`);
    let changed = false;
    if (change.enabled !== undefined && entry.enabled !== change.enabled) {
      entry.enabled = change.enabled;
      changed = true;
    }
    if (change.exposure !== undefined && entry.exposure !== change.exposure) {
      entry.exposure = change.exposure;
      changed = true;
    }
    return { result: undefined, changed };
  });
  return { path };
}
