import { createRequire } from "node:module";

/**
 * The `key: value` header of a Markdown file between `---` lines. Flat
 * values (quoted strings, `|`/`>` blocks, indented continuation lines) are
 * read here; a list or map (block or flow) goes to the `yaml` package,
 * loaded the first time a header has one. Every scalar stays a string.
 */
export interface Frontmatter {
  /** The values that are text. */
  attributes: Record<string, string>;
  /** Every value, lists and maps included. */
  values: Record<string, FrontmatterValue>;
  body: string;
  /** Problems worth a warning; parsing still returns what it could. */
  problems: string[];
}

export type FrontmatterValue = string | FrontmatterValue[] | { [key: string]: FrontmatterValue };

const KEY_LINE = /^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*)|\s*)$/;
const NESTED_LINE = /^\s*(- |-$|[\w.-]+\s*:(\s|$))/;

export function parseFrontmatter(text: string): Frontmatter {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const lines = source.split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return { attributes: {}, values: {}, body: source, problems: [] };
  const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(line));
  if (end === -1) return { attributes: {}, values: {}, body: source, problems: ["frontmatter starts with --- but is never closed"] };
  const { attributes, values, problems } = parseHeader(lines.slice(1, end));
  const body = lines
    .slice(end + 1)
    .join("\n")
    .replace(/^\n+/, "");
  return { attributes, values, body, problems };
}

function parseHeader(lines: string[]): Omit<Frontmatter, "body"> {
  const values: Record<string, FrontmatterValue> = Object.create(null) as Record<string, FrontmatterValue>;
  const problems: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    i++;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (/^\s/.test(line)) continue; // belongs to a nested value we skip
    const match = KEY_LINE.exec(line);
    if (!match) {
      problems.push(`frontmatter line ${i + 1} is not "key: value": ${line.trim().slice(0, 60)}`);
      continue;
    }
    const key = match[1]!;
    const inline = (match[2] ?? "").trim();
    const block = indentedBlock(lines, i, inline === "");
    i += block.length;
    const value = readValue(inline, block);
    let result: FrontmatterValue | undefined = value.text;
    if (isStructured(inline, block)) {
      const structured = parseStructured(key, [line, ...block]);
      if (structured.problem) problems.push(`frontmatter "${key}": ${structured.problem}`);
      else result = structured.value;
    } else if (value.problem) {
      problems.push(`frontmatter "${key}": ${value.problem}`);
    }
    if (result !== undefined) values[key] = result;
  }
  // Built without a prototype and spread, so `__proto__` is a key like any other.
  const attributes = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(values)) if (typeof value === "string") attributes[key] = value;
  return { attributes: { ...attributes }, values: { ...values }, problems };
}

/** A list or map, or a value with an anchor, alias or tag: more YAML than the reading above knows. */
function isStructured(inline: string, block: string[]): boolean {
  if (/^[[{&*!]/.test(inline)) return true;
  return inline === "" && block.some((line) => NESTED_LINE.test(line));
}

type Yaml = typeof import("yaml");
let yaml: Yaml | undefined;

/** One key's lines as YAML; on a failure, the reason (what the flat reading made of it then stands). */
function parseStructured(key: string, lines: string[]): { value?: FrontmatterValue; problem?: string } {
  // Loaded on first need, and synchronously: most headers never need it, and the readers of headers are synchronous.
  yaml ??= createRequire(import.meta.url)("yaml") as Yaml;
  try {
    const doc = yaml.parseDocument(lines.join("\n"), { schema: "failsafe", prettyErrors: false });
    const error = doc.errors[0];
    if (error) return { problem: firstLine(error.message) };
    const parsed = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (typeof parsed !== "object" || parsed === null || !Object.hasOwn(parsed, key)) return { problem: "not a value of this key" };
    return { value: plainValue((parsed as Record<string, unknown>)[key]) };
  } catch (error) {
    return { problem: firstLine(error instanceof Error ? error.message : String(error)) };
  }
}

function firstLine(text: string): string {
  return text.split("\n", 1)[0]!.slice(0, 200);
}

/** Plain objects and arrays of strings, whatever the parser built: `__proto__` stays an ordinary key. */
function plainValue(value: unknown): FrontmatterValue {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(plainValue);
  if (typeof value === "object" && value !== null) {
    const map = Object.create(null) as Record<string, FrontmatterValue>;
    for (const [key, item] of Object.entries(value)) map[key] = plainValue(item);
    return { ...map };
  }
  return value === null || value === undefined ? "" : String(value);
}

/**
 * The indented (or blank) lines that follow a key line; after a key without
 * an inline value, `- ` lines too, as YAML lets a list sit at its key's indent.
 */
function indentedBlock(lines: string[], start: number, listAtKeyIndent: boolean): string[] {
  const belongs = (line: string) => line.trim() === "" || /^\s/.test(line) || (listAtKeyIndent && /^-(\s|$)/.test(line));
  let end = start;
  while (end < lines.length && belongs(lines[end]!)) end++;
  while (end > start && lines[end - 1]!.trim() === "") end--;
  return lines.slice(start, end);
}

function readValue(inline: string, block: string[]): { text?: string; problem?: string } {
  const blockMatch = /^([|>])[-+]?\s*(#.*)?$/.exec(inline);
  if (blockMatch) return { text: blockScalar(block, blockMatch[1] === ">") };
  if (inline === "") {
    if (block.length === 0 || block.some((line) => NESTED_LINE.test(line))) return {};
    return { text: fold(block) };
  }
  if (inline.startsWith('"') || inline.startsWith("'")) return quoted(inline, block);
  const plain = inline.replace(/\s+#.*$/, "");
  return { text: block.length > 0 ? fold([plain, ...block]) : plain };
}

function blockScalar(block: string[], folded: boolean): string {
  const indents = block.filter((l) => l.trim() !== "").map((l) => /^\s*/.exec(l)![0].length);
  const cut = indents.length > 0 ? Math.min(...indents) : 0;
  const body = block.map((l) => l.slice(cut).trimEnd());
  return folded ? joinFolded(body) : body.join("\n");
}

/** Plain multi-line values fold into one line, with blank lines as breaks. */
function fold(lines: string[]): string {
  return joinFolded(lines.map((l) => l.trim()));
}

function joinFolded(lines: string[]): string {
  let out = "";
  for (const line of lines) {
    if (line === "") out += "\n";
    else out += out === "" || out.endsWith("\n") ? line : ` ${line}`;
  }
  return out;
}

function quoted(inline: string, block: string[]): { text?: string; problem?: string } {
  const all = block.length > 0 ? fold([inline, ...block]) : inline;
  const quote = all[0]!;
  let out = "";
  for (let i = 1; i < all.length; i++) {
    const ch = all[i]!;
    if (quote === "'" && ch === "'") {
      if (all[i + 1] === "'") {
        out += "'";
        i++;
        continue;
      }
      return { text: out };
    }
    if (quote === '"' && ch === "\\" && i + 1 < all.length) {
      const next = all[++i]!;
      out += next === "n" ? "\n" : next === "t" ? "\t" : next;
      continue;
    }
    if (quote === '"' && ch === '"') return { text: out };
    out += ch;
  }
  return { text: out, problem: "the quoted value is never closed" };
}
