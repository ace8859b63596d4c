import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { readJsonFile } from "@knightcode/system/fs/json-file";
import { PROJECT_CONFIG_DIR, isTrusted, type TrustInput } from "../settings/scope.js";
import type { SettingsObject } from "../settings/keys.js";
import { McpFileShape } from "@knightcode/schema/mcp-file";
import { checker } from "@knightcode/schema/problems";
import type { Warning } from "@knightcode/system/warning";
import {
  checkServerName,
  isFieldOverride,
  isStdioEntry,
  parseOverrideEntry,
  parseServerEntry,
  serverTarget,
  type McpExposure,
  type McpOverrideEntry,
  type McpScope,
  type McpServerEntry,
} from "./config.js";

export const MCP_FILE = "mcp.json";
const fileShape = checker(McpFileShape);

export function globalMcpPath(agentDir: string): string {
  return join(resolve(agentDir), MCP_FILE);
}

export function projectMcpPath(cwd: string): string {
  return join(resolve(cwd), PROJECT_CONFIG_DIR, MCP_FILE);
}

/** One read of an mcp.json: its good entries, and a warning for each problem. */
export interface McpFile {
  path: string;
  scope: McpScope;
  exists: boolean;
  /** The file is there but is not `{"mcpServers": {...}}` JSON: it is never written. */
  corrupt: boolean;
  /** The whole document, when it is not corrupt. */
  doc?: SettingsObject;
  /** Its text, which a write edits to keep the user's formatting. */
  text?: string;
  servers: Map<string, McpServerEntry>;
  /** Project entries that change only fields of the global server of their name. */
  overrides: Map<string, McpOverrideEntry>;
  warnings: Warning[];
}

function problem(path: string, message: string, position: { line?: number; column?: number } = {}): Warning {
  return { message: `${path}: ${message}`, source: "settings", path, ...position };
}

/** Reads one mcp.json; damage and bad entries become warnings, never a throw. */
export function readMcpFile(path: string, scope: McpScope): McpFile {
  const file: McpFile = { path, scope, exists: false, corrupt: false, servers: new Map(), overrides: new Map(), warnings: [] };
  const corrupt = (message: string, position?: { line?: number; column?: number }): McpFile => {
    file.corrupt = true;
    file.warnings.push(problem(path, message, position));
    return file;
  };
  let read;
  try {
    read = readJsonFile(path);
  } catch (error) {
    file.exists = true;
    return corrupt(`cannot be read: ${(error as Error).message}`);
  }
  file.exists = read.exists;
  if (!read.exists) return file;
  if (read.syntax) {
    const { message, line, column } = read.syntax;
    return corrupt(`is not valid JSON: ${message}`, line === undefined ? {} : { line, column });
  }
  const doc = read.value ?? {};
  const shape = fileShape.read(doc);
  if (!shape.ok) return corrupt(shape.problem);
  file.doc = doc as SettingsObject;
  if (read.text !== undefined) file.text = read.text;
  for (const [name, raw] of Object.entries(shape.value.mcpServers ?? {})) {
    const badName = checkServerName(name);
    if (badName) {
      file.warnings.push(problem(path, `${badName}; the entry is skipped`));
      continue;
    }
    if (scope === "project" && isFieldOverride(raw)) {
      const checked = parseOverrideEntry(raw);
      if (checked.ok) file.overrides.set(name, checked.entry);
      else file.warnings.push(problem(path, `server ${name}: ${checked.message}; the entry is skipped`));
      continue;
    }
    const checked = parseServerEntry(raw, scope);
    if (checked.ok) file.servers.set(name, checked.entry);
    else file.warnings.push(problem(path, `server ${name}: ${checked.message}; the entry is skipped`));
  }
  return file;
}

/** One server as a thread in the listing's folder would see it. */
export interface McpServerInfo {
  name: string;
  /** Where it is defined. */
  scope: McpScope;
  source: string;
  /** The project file that overrides a global server. */
  override?: string;
  /** The entry in force: the project's replacement, or the global entry with the project's field overrides. */
  entry: McpServerEntry;
  transport: "stdio" | "http";
  target: string;
  description?: string;
  enabled: boolean;
  exposure: McpExposure;
}

export interface McpListing {
  servers: McpServerInfo[];
  warnings: Warning[];
  paths: { global: string; project?: string };
  global: McpFile;
  /** Read only for a trusted project. */
  project?: McpFile;
}

function info(name: string, entry: McpServerEntry, scope: McpScope, source: string, override?: string): McpServerInfo {
  return {
    name,
    scope,
    source,
    ...(override === undefined ? {} : { override }),
    entry,
    transport: isStdioEntry(entry) ? "stdio" : "http",
    target: serverTarget(entry),
    ...(entry.description === undefined ? {} : { description: entry.description }),
    enabled: entry.enabled ?? true,
    exposure: entry.exposure ?? "direct",
  };
}

export interface McpListingOptions {
  agentDir: string;
  cwd?: string;
  trust: TrustInput;
}

/**
 * The servers of the global mcp.json and, for an explicitly trusted
 * project, of its `.knightcode/mcp.json`, which wins: a project entry with
 * a global server's name replaces it (or, with neither command nor url,
 * changes only its enabled, exposure or description), and the listing
 * shows one server whose `override` names the project file. Reads files,
 * starts nothing.
 */
export function listMcpServers(options: McpListingOptions): McpListing {
  const globalPath = globalMcpPath(options.agentDir);
  const global = readMcpFile(globalPath, "global");
  const warnings = [...global.warnings];
  const paths: McpListing["paths"] = { global: globalPath };
  let project: McpFile | undefined;
  if (options.cwd !== undefined) {
    paths.project = projectMcpPath(options.cwd);
    if (isTrusted(options.trust, options.cwd)) {
      project = readMcpFile(paths.project, "project");
      warnings.push(...project.warnings);
    } else if (existsSync(paths.project)) {
      warnings.push({ message: `${paths.project} is skipped: the project is not trusted`, source: "trust", path: paths.project });
    }
  }
  const byName = new Map<string, McpServerInfo>();
  for (const [name, entry] of global.servers) byName.set(name, info(name, entry, "global", globalPath));
  if (project) {
    for (const [name, entry] of project.servers) {
      byName.set(name, byName.has(name) ? info(name, entry, "global", globalPath, project.path) : info(name, entry, "project", project.path));
    }
    for (const [name, fields] of project.overrides) {
      const base = global.servers.get(name);
      if (!base) {
        warnings.push(problem(project.path, `server ${name} has neither command nor url and names no global server; the entry is skipped`));
        continue;
      }
      byName.set(name, info(name, { ...base, ...fields }, "global", globalPath, project.path));
    }
  }
  const servers = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { servers, warnings, paths, global, ...(project ? { project } : {}) };
}
