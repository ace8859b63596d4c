import { basename } from "node:path";
import { firstLineSummary, readMarkdownFile, readMarkdownHeader } from "./markdown-file.js";

/**
 * Splits command arguments the way a shell would, without expanding
 * anything: whitespace separates, '...' is literal, "..." allows \" and \\,
 * a backslash outside quotes escapes the next character, and adjacent
 * pieces join (`a"b c"` is one argument). An unclosed quote runs to the end.
 */
export function splitArgs(input: string): string[] {
  const args: string[] = [];
  let current = "";
  let inArg = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < input.length; i++) {
    const ch = input[i]!;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else current += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === "\\" && (input[i + 1] === '"' || input[i + 1] === "\\")) current += input[++i];
      else current += ch;
    } else if (/\s/.test(ch)) {
      if (inArg) args.push(current);
      current = "";
      inArg = false;
    } else {
      inArg = true;
      if (ch === "'" || ch === '"') quote = ch;
      else if (ch === "\\" && i + 1 < input.length) current += input[++i];
      else current += ch;
    }
  }
  if (inArg) args.push(current);
  return args;
}

const PLACEHOLDER = /\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@|\$([1-9])/g;

/**
 * A prompt template with its arguments filled in, in one pass so that
 * arguments are never expanded again: `$1`..`$9` (empty when missing), `$@`
 * and `$ARGUMENTS` (all, joined by spaces), `${@:N}` and `${@:N:L}` (from
 * the N-th, L of them). A template that uses none of these gets the
 * arguments appended after a blank line, so they are never dropped.
 */
export function expandPromptTemplate(template: string, args: string): string {
  const list = splitArgs(args);
  let used = false;
  const expanded = template.replace(PLACEHOLDER, (_match, from?: string, length?: string, index?: string) => {
    used = true;
    if (index !== undefined) return list[Number(index) - 1] ?? "";
    if (from !== undefined) {
      const start = Math.max(Number(from) - 1, 0);
      const end = length !== undefined ? start + Number(length) : undefined;
      return list.slice(start, end).join(" ");
    }
    return list.join(" ");
  });
  if (used || list.length === 0) return expanded;
  return `${expanded.trimEnd()}\n\n${args.trim()}`;
}

export interface SlashInput {
  name: string;
  args: string;
}

/**
 * `/name args...` split into the command name and the rest (which may span
 * lines). Undefined for text that is not a command: no leading slash, an
 * empty name, or a name with another slash (a path such as /usr/bin).
 */
export function parseSlashInput(text: string): SlashInput | undefined {
  if (!text.startsWith("/")) return undefined;
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match || match[1]!.includes("/")) return undefined;
  return { name: match[1]!, args: (match[2] ?? "").trimEnd() };
}

export interface PromptTemplate {
  name: string;
  path: string;
  description?: string;
  /** The text after the frontmatter, where placeholders are expanded. */
  body: string;
}

function describe(attributes: Record<string, string>, body: string): string | undefined {
  return attributes.description?.trim() || firstLineSummary(body);
}

/** The description shown for `/name` (frontmatter `description`, else the first line), and header problems. */
export function readPromptHeader(path: string): { description?: string; problems: string[] } {
  const { attributes, body, problems } = readMarkdownHeader(path);
  const description = describe(attributes, body);
  return { ...(description ? { description } : {}), problems };
}

export function loadPromptTemplate(path: string): PromptTemplate {
  const { attributes, body } = readMarkdownFile(path);
  const description = describe(attributes, body);
  return { name: basename(path).replace(/\.md$/, ""), path, ...(description ? { description } : {}), body };
}
