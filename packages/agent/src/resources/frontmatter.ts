/**
 * The flat `key: value` header of a Markdown file between `---` lines. Not
 * YAML: quoted strings, `|`/`>` blocks and indented continuation lines are
 * understood; nested maps and lists are skipped, every value stays a string.
 */
export interface Frontmatter {
  attributes: Record<string, string>;
  body: string;
  /** Problems worth a warning; parsing still returns what it could. */
  problems: string[];
}

const KEY_LINE = /^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*)|\s*)$/;

export function parseFrontmatter(text: string): Frontmatter {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const lines = source.split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return { attributes: {}, body: source, problems: [] };
  const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(line));
  if (end === -1) return { attributes: {}, body: source, problems: ["frontmatter starts with --- but is never closed"] };
  const { attributes, problems } = parseHeader(lines.slice(1, end));
  const body = lines.slice(end + 1).join("\n").replace(/^\n+/, "");
  return { attributes, body, problems };
}

function parseHeader(lines: string[]): { attributes: Record<string, string>; problems: string[] } {
  const attributes: Record<string, string> = Object.create(null) as Record<string, string>;
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
    const block = indentedBlock(lines, i);
    i += block.length;
    const value = readValue(inline, block);
    if (value.problem) problems.push(`frontmatter "${key}": ${value.problem}`);
    if (value.text !== undefined) attributes[key] = value.text;
  }
  return { attributes: { ...attributes }, problems };
}

/** The indented (or blank) lines that follow a key line. */
function indentedBlock(lines: string[], start: number): string[] {
  let end = start;
  while (end < lines.length && (lines[end]!.trim() === "" || /^\s/.test(lines[end]!))) end++;
  while (end > start && lines[end - 1]!.trim() === "") end--;
  return lines.slice(start, end);
}

function readValue(inline: string, block: string[]): { text?: string; problem?: string } {
  const blockMatch = /^([|>])[-+]?\s*(#.*)?$/.exec(inline);
  if (blockMatch) return { text: blockScalar(block, blockMatch[1] === ">") };
  if (inline === "") {
    const looksNested = block.some((line) => /^\s*(- |-$|[\w.-]+\s*:(\s|$))/.test(line));
    if (looksNested || block.length === 0) return {};
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
