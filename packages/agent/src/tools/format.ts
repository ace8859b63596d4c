/** Limits shared by the tools, so the model learns one set of numbers. */
export const MAX_OUTPUT_LINES = 2000;
export const MAX_OUTPUT_BYTES = 50 * 1024;
export const MAX_LINE_CHARS = 2000;

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GiB`;
}

/** The first `max` UTF-16 units of `text`, never ending inside a surrogate pair. */
export function sliceChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** A line cut to `max` characters with a notice of how much was left out. */
export function cutLine(line: string, max = MAX_LINE_CHARS): { text: string; cut: boolean } {
  if (line.length <= max) return { text: line, cut: false };
  return { text: `${sliceChars(line, max)} ... [line cut: ${line.length - max} more characters]`, cut: true };
}

/** Case-insensitive name order, ties broken by code units, so listings are stable. */
export function compareNames(a: string, b: string): number {
  const lowerA = a.toLowerCase();
  const lowerB = b.toLowerCase();
  if (lowerA !== lowerB) return lowerA < lowerB ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
