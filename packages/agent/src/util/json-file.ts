/** Where a JSON parse failed, one-based, when the parser said. */
export interface JsonParseFailure {
  message: string;
  line?: number;
  column?: number;
}

/** One-based line and column of a character offset. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Parses JSON, or describes the failure with the line and column the parser
 * reported (V8 names a character position in its message).
 */
export function parseJson(text: string): { value: unknown } | { failure: JsonParseFailure } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    if (position) return { failure: { message, ...lineColumnAt(text, Number(position[1])) } };
    const lineColumn = /line (\d+) column (\d+)/.exec(message);
    if (lineColumn) return { failure: { message, line: Number(lineColumn[1]), column: Number(lineColumn[2]) } };
    if (/Unexpected end of JSON input/.test(message)) return { failure: { message, ...lineColumnAt(text, text.length) } };
    return { failure: { message } };
  }
}
