import { resolve } from "node:path";
import { isPlainObject } from "../settings/keys.js";
import type { McpExposure } from "@knightcode/schema/mcp";

/**
 * How a server's tools reach the model. `direct`: each MCP tool is a tool of
 * its own. `proxy`: one tool for the whole server, whose description lists
 * the server's tools and which calls them by name; a server with many tools
 * then costs the model one tool definition instead of dozens.
 */
export type { McpExposure };
export const MCP_EXPOSURES: readonly McpExposure[] = ["direct", "proxy"];

export type McpScope = "global" | "project";

/**
 * `auth` in the global file only: the bearer token an http server gets,
 * read from the server's own environment when the thread connects. A
 * project file may not ask for one, or it could send the user's token to
 * any address it names.
 */
export interface McpAuth {
  bearerTokenEnv: string;
}

interface CommonFields {
  enabled?: boolean;
  exposure?: McpExposure;
  description?: string;
}

export interface McpStdioEntry extends CommonFields {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  /** Absolute, or relative to the thread's folder; the thread's folder when absent. */
  cwd?: string;
}

export interface McpHttpEntry extends CommonFields {
  url: string;
  headers?: Record<string, string>;
  auth?: McpAuth;
}

export type McpServerEntry = McpStdioEntry | McpHttpEntry;

/** A project entry naming a global server with neither `command` nor `url`: it changes only these fields of it. */
export type McpOverrideEntry = CommonFields;

export const MAX_SERVER_NAME = 32;
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
const MAX_ARGS = 256;
const MAX_TEXT = 8192;
const MAX_DESCRIPTION = 1000;
const MAX_MAP_ENTRIES = 128;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;

const STDIO_KEYS = new Set(["command", "args", "env", "cwd"]);
const HTTP_KEYS = new Set(["url", "headers", "auth"]);
const COMMON_KEYS = new Set(["enabled", "exposure", "description"]);

export function isStdioEntry(entry: McpServerEntry): entry is McpStdioEntry {
  return "command" in entry;
}

/** Why a server name is refused, or undefined for a good one. */
export function checkServerName(name: string): string | undefined {
  if (SERVER_NAME_PATTERN.test(name)) return undefined;
  return `server name ${JSON.stringify(name.slice(0, 64))} must be 1 to ${MAX_SERVER_NAME} letters, digits, _ or -, starting with a letter or digit`;
}

class EntryProblem extends Error {}

function fail(message: string): never {
  throw new EntryProblem(message);
}

function text(value: unknown, field: string, max = MAX_TEXT): string {
  if (typeof value !== "string") fail(`${field} must be a string`);
  if (value.length > max) fail(`${field} is longer than ${max} characters`);
  if (value.includes("\0")) fail(`${field} contains a NUL character`);
  return value;
}

function stringMap(value: unknown, field: string, key: RegExp, keyWhat: string, checkValue: (v: string, at: string) => void): Record<string, string> {
  if (!isPlainObject(value)) fail(`${field} must be an object of strings`);
  const entries = Object.entries(value);
  if (entries.length > MAX_MAP_ENTRIES) fail(`${field} has more than ${MAX_MAP_ENTRIES} entries`);
  const out: Record<string, string> = {};
  for (const [name, item] of entries) {
    if (!key.test(name)) fail(`${field}: ${JSON.stringify(name.slice(0, 64))} is not ${keyWhat}`);
    const at = `${field}.${name}`;
    const v = text(item, at);
    checkValue(v, at);
    out[name] = v;
  }
  return out;
}

function common(raw: Record<string, unknown>): CommonFields {
  const out: CommonFields = {};
  if (raw.enabled !== undefined) {
    if (typeof raw.enabled !== "boolean") fail("enabled must be true or false");
    out.enabled = raw.enabled;
  }
  if (raw.exposure !== undefined) {
    if (!MCP_EXPOSURES.includes(raw.exposure as McpExposure)) fail(`exposure must be one of ${MCP_EXPOSURES.join(", ")}`);
    out.exposure = raw.exposure as McpExposure;
  }
  if (raw.description !== undefined) out.description = text(raw.description, "description", MAX_DESCRIPTION);
  return out;
}

function httpUrl(value: unknown): string {
  const raw = text(value, "url");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail("url is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") fail("url must be an http or https URL");
  return raw;
}

function parseAuth(value: unknown): McpAuth {
  if (!isPlainObject(value)) fail(`auth must be an object {"bearerTokenEnv": "<variable>"}`);
  for (const key of Object.keys(value)) if (key !== "bearerTokenEnv") fail(`auth: unknown field ${JSON.stringify(key)}`);
  const name = text(value.bearerTokenEnv, "auth.bearerTokenEnv", 128);
  if (!ENV_NAME.test(name)) fail("auth.bearerTokenEnv must name an environment variable");
  return { bearerTokenEnv: name };
}

function parseStdio(raw: Record<string, unknown>): McpStdioEntry {
  const command = text(raw.command, "command");
  if (command.trim() === "") fail("command must not be empty");
  const entry: McpStdioEntry = { command, ...common(raw) };
  if (raw.args !== undefined) {
    if (!Array.isArray(raw.args)) fail("args must be an array of strings");
    if (raw.args.length > MAX_ARGS) fail(`args has more than ${MAX_ARGS} items`);
    entry.args = raw.args.map((arg, i) => text(arg, `args[${i}]`));
  }
  if (raw.env !== undefined) entry.env = stringMap(raw.env, "env", ENV_NAME, "an environment variable name", () => undefined);
  if (raw.cwd !== undefined) {
    const cwd = text(raw.cwd, "cwd", 4096);
    if (cwd === "") fail("cwd must not be empty");
    entry.cwd = cwd;
  }
  return entry;
}

function parseHttp(raw: Record<string, unknown>, scope: McpScope): McpHttpEntry {
  const entry: McpHttpEntry = { url: httpUrl(raw.url), ...common(raw) };
  if (raw.headers !== undefined) {
    entry.headers = stringMap(raw.headers, "headers", HEADER_NAME, "a header name", (v, at) => {
      if (/[\r\n]/.test(v)) fail(`${at} contains a line break`);
    });
  }
  if (raw.auth !== undefined) {
    if (scope === "project") fail("auth is allowed only in the global mcp.json");
    entry.auth = parseAuth(raw.auth);
  }
  return entry;
}

export type EntryCheck<T> = { ok: true; entry: T } | { ok: false; message: string };

/**
 * Checks one `mcpServers` entry strictly: a stdio entry has `command`
 * (and maybe `args`, `env`, `cwd`), an http entry `url` (and maybe
 * `headers`, and `auth` in the global file); both may have `enabled`,
 * `exposure` and `description`. Any other field, or fields of both kinds,
 * is refused, so a misspelt field never goes unnoticed.
 */
export function parseServerEntry(value: unknown, scope: McpScope): EntryCheck<McpServerEntry> {
  try {
    if (!isPlainObject(value)) fail("a server entry must be an object");
    const stdio = Object.hasOwn(value, "command");
    const http = Object.hasOwn(value, "url");
    if (stdio === http) fail(stdio ? "an entry has either command or url, not both" : "an entry needs command (a program to start) or url (an http server)");
    const allowed = stdio ? STDIO_KEYS : HTTP_KEYS;
    for (const key of Object.keys(value)) {
      if (allowed.has(key) || COMMON_KEYS.has(key)) continue;
      const other = stdio ? HTTP_KEYS.has(key) : STDIO_KEYS.has(key);
      fail(other ? `${key} belongs to ${stdio ? "an http" : "a stdio"} entry` : `unknown field ${JSON.stringify(key.slice(0, 64))}`);
    }
    return { ok: true, entry: stdio ? parseStdio(value) : parseHttp(value, scope) };
  } catch (error) {
    if (error instanceof EntryProblem) return { ok: false, message: error.message };
    throw error;
  }
}

/** A project entry that only changes `enabled`, `exposure` or `description` of the global server of its name. */
export function parseOverrideEntry(value: unknown): EntryCheck<McpOverrideEntry> {
  try {
    if (!isPlainObject(value)) fail("a server entry must be an object");
    for (const key of Object.keys(value)) if (!COMMON_KEYS.has(key)) fail(`unknown field ${JSON.stringify(key.slice(0, 64))}`);
    return { ok: true, entry: common(value) };
  } catch (error) {
    if (error instanceof EntryProblem) return { ok: false, message: error.message };
    throw error;
  }
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
