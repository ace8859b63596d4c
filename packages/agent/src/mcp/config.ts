import { resolve } from "node:path";
import { isPlainObject } from "../settings/keys.js";
import type { McpExposure } from "@knightcode/schema/mcp";
import {
  MAX_SERVER_NAME,
  McpHttpEntry,
  McpOverrideEntry,
  McpProjectHttpEntry,
  McpStdioEntry,
  SERVER_NAME_PATTERN as SERVER_NAME,
} from "@knightcode/schema/mcp-file";
import { checker } from "@knightcode/schema/problems";

/**
 * How a server's tools reach the model. `direct`: each MCP tool is a tool of
 * its own. `proxy`: one tool for the whole server, whose description lists
 * the server's tools and which calls them by name; a server with many tools
 * then costs the model one tool definition instead of dozens.
 */
export type { McpExposure };
export const MCP_EXPOSURES: readonly McpExposure[] = ["direct", "proxy"];

export type McpScope = "global" | "project";

/** `auth` in the global file only: the bearer token an http server gets, read from the server's own environment when the thread connects. */
export type McpAuth = NonNullable<McpHttpEntry["auth"]>;

/** A stdio entry's `cwd` is absolute, or relative to the thread's folder; the thread's folder when absent. */
export type { McpHttpEntry, McpStdioEntry };

export type McpServerEntry = McpStdioEntry | McpHttpEntry;

/** A project entry naming a global server with neither `command` nor `url`: it changes only these fields of it. */
export type { McpOverrideEntry };

export { MAX_SERVER_NAME };
export const SERVER_NAME_PATTERN = new RegExp(SERVER_NAME, "u");

const stdioEntry = checker(McpStdioEntry);
const httpEntry = { global: checker(McpHttpEntry), project: checker(McpProjectHttpEntry) };
const overrideEntry = checker(McpOverrideEntry);

const COMMON_KEYS: ReadonlySet<string> = new Set(Object.keys(McpOverrideEntry.properties));
const own = (schema: { properties: object }) => new Set(Object.keys(schema.properties).filter((key) => !COMMON_KEYS.has(key)));
const STDIO_KEYS = own(McpStdioEntry);
const HTTP_KEYS = own(McpHttpEntry);

export function isStdioEntry(entry: McpServerEntry): entry is McpStdioEntry {
  return "command" in entry;
}

/** Why a server name is refused, or undefined for a good one. */
export function checkServerName(name: string): string | undefined {
  if (SERVER_NAME_PATTERN.test(name)) return undefined;
  return `server name ${JSON.stringify(name.slice(0, 64))} must be 1 to ${MAX_SERVER_NAME} letters, digits, _ or -, starting with a letter or digit`;
}

export type EntryCheck<T> = { ok: true; entry: T } | { ok: false; message: string };

/**
 * Which kind an entry is, from its keys: a rule across the two shapes
 * (a key of the other kind is named as such, not as unknown).
 */
function kindProblem(value: Record<string, unknown>): string | undefined {
  const stdio = Object.hasOwn(value, "command");
  if (stdio === Object.hasOwn(value, "url"))
    return stdio ? "an entry has either command or url, not both" : "an entry needs command (a program to start) or url (an http server)";
  const allowed = stdio ? STDIO_KEYS : HTTP_KEYS;
  for (const key of Object.keys(value)) {
    if (allowed.has(key) || COMMON_KEYS.has(key)) continue;
    const other = stdio ? HTTP_KEYS.has(key) : STDIO_KEYS.has(key);
    return other ? `${key} belongs to ${stdio ? "an http" : "a stdio"} entry` : `unknown field ${JSON.stringify(key.slice(0, 64))}`;
  }
  return undefined;
}

/** Only http and https, and a URL that parses: what a schema's string cannot say. */
function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "url is not a valid URL";
  }
  return parsed.protocol === "http:" || parsed.protocol === "https:" ? undefined : "url must be an http or https URL";
}

/** The entry's known fields in the schema's order, so a written entry always reads the same way. */
function inOrder<T>(schema: { properties: object }, value: Record<string, unknown>): T {
  return Object.fromEntries(
    Object.keys(schema.properties)
      .filter((key) => Object.hasOwn(value, key))
      .map((key) => [key, value[key]]),
  ) as T;
}

/**
 * Checks one `mcpServers` entry strictly: a stdio entry has `command`
 * (and maybe `args`, `env`, `cwd`), an http entry `url` (and maybe
 * `headers`, and `auth` in the global file); both may have `enabled`,
 * `exposure` and `description`. Any other field, or fields of both kinds,
 * is refused, so a misspelt field never goes unnoticed.
 */
export function parseServerEntry(value: unknown, scope: McpScope): EntryCheck<McpServerEntry> {
  if (!isPlainObject(value)) return { ok: false, message: "a server entry must be an object" };
  const kind = kindProblem(value);
  if (kind !== undefined) return { ok: false, message: kind };
  if (Object.hasOwn(value, "command")) {
    const read = stdioEntry.read(value);
    return read.ok ? { ok: true, entry: inOrder(McpStdioEntry, read.value) } : { ok: false, message: read.problem };
  }
  const read = httpEntry[scope].read(value);
  if (!read.ok) return { ok: false, message: read.problem };
  const url = urlProblem(read.value.url);
  return url === undefined ? { ok: true, entry: inOrder(McpHttpEntry, read.value) } : { ok: false, message: url };
}

/** A project entry that only changes `enabled`, `exposure` or `description` of the global server of its name. */
export function parseOverrideEntry(value: unknown): EntryCheck<McpOverrideEntry> {
  const read = overrideEntry.read(value);
  return read.ok ? { ok: true, entry: inOrder(McpOverrideEntry, read.value) } : { ok: false, message: read.problem };
}

/** Whether a raw project entry is an override of fields only (neither command nor url). */
export function isFieldOverride(value: unknown): boolean {
  return isPlainObject(value) && !Object.hasOwn(value, "command") && !Object.hasOwn(value, "url");
}

/**
 * The folder a stdio server starts in: the entry's `cwd` (relative to the
 * thread's folder) when it names one, else `fallback`: for a global entry
 * an empty folder of the server's own. Started in the project, `npx x` would
 * run the project's `node_modules/.bin/x` and `python -m x` its `x.py`:
 * code an untrusted repository chose, behind a global entry the user wrote.
 */
export function serverCwd(entry: McpStdioEntry, threadCwd: string, fallback: string): string {
  return entry.cwd === undefined ? fallback : resolve(threadCwd, entry.cwd);
}

function quoteArg(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

/**
 * What a listing shows of where a server is, and never a secret: a stdio
 * server's command line (its `env` is not shown), an http server's URL
 * without its password and with every query value masked (tokens often
 * travel there); headers are never shown.
 */
export function serverTarget(entry: McpServerEntry): string {
  if (isStdioEntry(entry)) return [entry.command, ...(entry.args ?? [])].map(quoteArg).join(" ");
  let url: URL;
  try {
    url = new URL(entry.url);
  } catch {
    return "(invalid url)";
  }
  if (url.password !== "") url.password = "***";
  const masked = new URLSearchParams();
  for (const key of url.searchParams.keys()) if (!masked.has(key)) masked.append(key, "***");
  url.search = masked.toString();
  url.hash = "";
  return url.toString().replace(/%2A%2A%2A/g, "***");
}
