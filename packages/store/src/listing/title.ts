/** Code points a title keeps: enough for a sidebar row, never a whole message. */
export const TITLE_MAX = 120;
/** The protocol caps names set through thread/name/set at 200 characters. */
export const NAME_MAX = 200;

const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/g;

function isHighSurrogate(text: string, at: number): boolean {
  const unit = text.charCodeAt(at);
  return unit >= 0xd800 && unit <= 0xdbff && at + 1 < text.length;
}

/** At most `max` code points; a cut text ends with an ellipsis (which counts as one). */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  for (let points = 0; points < max - 1 && end < text.length; points++) end += isHighSurrogate(text, end) ? 2 : 1;
  if (end >= text.length) return text;
  const lastEnd = end + (isHighSurrogate(text, end) ? 2 : 1);
  return lastEnd >= text.length ? text : `${text.slice(0, end)}…`;
}

/** The first non-blank line of a message's text, trimmed and bounded. */
export function titleFromText(text: string): string {
  for (let start = 0; start < text.length; ) {
    LINE_BREAK.lastIndex = start;
    const match = LINE_BREAK.exec(text);
    const end = match === null ? text.length : match.index;
    const line = text.slice(start, end).trim();
    if (line !== "") return boundText(line, TITLE_MAX);
    start = match === null ? end : end + match[0].length;
  }
  return "";
}

/** The text a user message shows: its string content, or its first text part (images carry none). */
export function userMessageText(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const { role, content } = message as { role?: unknown; content?: unknown };
  if (role !== "user") return undefined;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  for (const part of content as unknown[]) {
    const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
    if (type === "text" && typeof text === "string") return text;
  }
  return "";
}
