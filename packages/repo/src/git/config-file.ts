import { readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { LRUCache } from "lru-cache";

/** One `key = value` of a git config file, names as git compares them (section and key without case). */
export interface ConfigEntry {
  /** `section` or `section.subsection` (the subsection keeps its case). */
  section: string;
  key: string;
  /** Undefined for a key given without `=` (a boolean true). */
  value: string | undefined;
  /** The file it was read from. */
  file: string;
}

const MAX_CONFIG_BYTES = 1024 * 1024;
/** git's own limit on nested includes. */
const MAX_INCLUDE_DEPTH = 10;

const parsed = new LRUCache<string, { version: string; entries: ConfigEntry[] }>({ max: 256 });

/**
 * The entries of a config file and of every file it includes, in order.
 * `include.path` and every `includeIf.<condition>.path` are followed
 * without judging the condition: a caller asking which values could apply
 * gets all of them. Parsed files are kept per version (size, times, inode),
 * so a later call costs a stat per file. A missing or unreadable file has
 * no entries.
 */
export function readConfigEntries(file: string, home: string, depth = 0): ConfigEntry[] {
  const own = parseCached(file);
  if (depth >= MAX_INCLUDE_DEPTH) return own;
  const out: ConfigEntry[] = [];
  for (const entry of own) {
    out.push(entry);
    const section = entry.section.toLowerCase();
    const including = section === "include" || section.startsWith("includeif.");
    if (including && entry.key === "path" && entry.value)
      out.push(...readConfigEntries(resolve(dirname(file), expandHome(entry.value, home)), home, depth + 1));
  }
  return out;
}

/** `~/` and a lone `~` name the home folder, as git expands path values. */
export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  return path.startsWith("~/") ? resolve(home, path.slice(2)) : path;
}

function parseCached(file: string): ConfigEntry[] {
  let version: string;
  try {
    const stats = statSync(file);
    if (!stats.isFile() || stats.size > MAX_CONFIG_BYTES) return [];
    version = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  } catch {
    return [];
  }
  const cached = parsed.get(file);
  if (cached?.version === version) return cached.entries;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const entries = parseConfig(text, file);
  parsed.set(file, { version, entries });
  return entries;
}

/**
 * git's config syntax: `[section]`, `[section "sub"]` or `[section.sub]`
 * headers (a key may follow on the header's line), `key = value` or a bare
 * key, `#` and `;` comments outside quotes, double quotes, the escapes
 * `\\ \" \n \t \b`, and a backslash at the end of a line continuing it.
 */
export function parseConfig(text: string, file: string): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  let section = "";
  let at = 0;
  while (at < text.length) {
    at = skipBlank(text, at);
    const char = text[at];
    if (char === undefined) break;
    if (char === "#" || char === ";" || char === "\n") {
      at = lineEnd(text, at);
      continue;
    }
    if (char === "[") {
      const header = readHeader(text, at);
      if (!header) {
        at = lineEnd(text, at);
        continue;
      }
      section = header.section;
      at = header.end;
      continue;
    }
    const key = /^[A-Za-z][A-Za-z0-9-]*/.exec(text.slice(at, at + 256))?.[0];
    if (!key) {
      at = lineEnd(text, at);
      continue;
    }
    at = skipBlank(text, at + key.length);
    if (text[at] === "=") {
      const value = readValue(text, at + 1);
      entries.push({ section, key: key.toLowerCase(), value: value.value, file });
      at = value.end;
    } else {
      entries.push({ section, key: key.toLowerCase(), value: undefined, file });
      at = lineEnd(text, at);
    }
  }
  return entries;
}

function skipBlank(text: string, at: number): number {
  while (text[at] === " " || text[at] === "\t" || text[at] === "\r") at++;
  return at;
}

function lineEnd(text: string, at: number): number {
  const end = text.indexOf("\n", at);
  return end === -1 ? text.length : end + 1;
}

function readHeader(text: string, at: number): { section: string; end: number } | undefined {
  const match = /^\[\s*([A-Za-z0-9.-]+)\s*(?:"((?:[^"\\\n]|\\.)*)")?\s*\]/.exec(text.slice(at, at + 1024));
  if (!match) return undefined;
  const name = match[1]!;
  const dot = name.indexOf(".");
  // The old `[section.sub]` form lowercases the subsection too; the quoted form keeps its case.
  const base = (dot === -1 ? name : name.slice(0, dot)).toLowerCase();
  const sub = match[2] !== undefined ? match[2].replace(/\\(.)/g, "$1") : dot === -1 ? undefined : name.slice(dot + 1).toLowerCase();
  return { section: sub === undefined ? base : `${base}.${sub}`, end: at + match[0].length };
}

const ESCAPES: Record<string, string> = { "\\": "\\", '"': '"', n: "\n", t: "\t", b: "\b" };

/** A value from after its `=` to the end of its logical line: outer blanks trimmed, blanks inside quotes kept. */
function readValue(text: string, at: number): { value: string; end: number } {
  let out = "";
  let pendingBlank = "";
  let quoted = false;
  let started = false;
  while (at < text.length) {
    const char = text[at]!;
    if (char === "\n") return { value: out, end: at + 1 };
    if (!quoted && (char === "#" || char === ";")) return { value: out, end: lineEnd(text, at) };
    if (char === "\\") {
      const next = text[at + 1];
      if (next === "\n" || (next === "\r" && text[at + 2] === "\n")) {
        at += next === "\n" ? 2 : 3;
        continue;
      }
      out += pendingBlank + (next !== undefined ? (ESCAPES[next] ?? "") : "");
      pendingBlank = "";
      started = true;
      at += 2;
      continue;
    }
    if (char === '"') {
      quoted = !quoted;
      out += pendingBlank;
      pendingBlank = "";
      started = true;
      at++;
      continue;
    }
    if (!quoted && (char === " " || char === "\t" || char === "\r")) {
      if (started) pendingBlank += char === "\r" ? "" : char;
      at++;
      continue;
    }
    out += pendingBlank + char;
    pendingBlank = "";
    started = true;
    at++;
  }
  return { value: out, end: at };
}
