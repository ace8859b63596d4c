/** Where and why a text is not JSON, for a warning a user can act on. */
export interface JsonSyntaxError {
  message: string;
  /** Offset into the text, in UTF-16 code units. */
  offset?: number;
  line?: number;
  column?: number;
}

export type JsonParse = { ok: true; value: unknown } | { ok: false; error: JsonSyntaxError };

class ScanError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_DEPTH = 2000;
const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

/**
 * A strict JSON scanner used only to locate the error once JSON.parse has
 * failed: V8's messages carry a position for some errors and not for others.
 * It stays beside jsonc-parser (which the writers use) because that one
 * places a bad escape or a line break in a string at the string's start,
 * where this points at the character itself, and says less about it.
 */
class Scanner {
  private pos = 0;

  constructor(private readonly text: string) {}

  scanDocument(): void {
    this.value(0);
    this.whitespace();
    if (this.pos < this.text.length) this.fail("expected the end of the file");
  }

  private found(): string {
    return this.pos >= this.text.length ? "the end of the file" : JSON.stringify(this.text[this.pos]);
  }

  private fail(expected: string): never {
    throw new ScanError(this.pos, `${expected} but found ${this.found()}`);
  }

  private whitespace(): void {
    while (this.pos < this.text.length && " \t\n\r".includes(this.text[this.pos]!)) this.pos++;
  }

  private value(depth: number): void {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`);
    this.whitespace();
    const char = this.text[this.pos];
    if (char === "{") this.container(depth, "}", true);
    else if (char === "[") this.container(depth, "]", false);
    else if (char === '"') this.string();
    else if (char === "-" || (char !== undefined && char >= "0" && char <= "9")) this.number();
    else if (!["true", "false", "null"].some((word) => this.literal(word))) this.fail("expected a value");
  }

  private container(depth: number, close: string, isObject: boolean): void {
    this.pos++;
    this.whitespace();
    if (this.text[this.pos] === close) {
      this.pos++;
      return;
    }
    for (;;) {
      if (isObject) {
        this.whitespace();
        if (this.text[this.pos] !== '"') this.fail("expected a double-quoted property name");
        this.string();
        this.whitespace();
        if (this.text[this.pos] !== ":") this.fail("expected ':'");
        this.pos++;
      }
      this.value(depth + 1);
      this.whitespace();
      const char = this.text[this.pos];
      if (char === close) {
        this.pos++;
        return;
      }
      if (char !== ",") this.fail(`expected ',' or '${close}'`);
      this.pos++;
    }
  }

  private literal(word: string): boolean {
    if (!this.text.startsWith(word, this.pos)) return false;
    this.pos += word.length;
    return true;
  }

  private string(): void {
    this.pos++;
    for (;;) {
      const char = this.text[this.pos];
      if (char === undefined) this.fail("expected a closing '\"'");
      if (char === '"') break;
      if (char < " ") this.fail("expected no control character inside a string");
      if (char === "\\") {
        this.pos++;
        const escaped = this.text[this.pos];
        if (escaped === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 1, this.pos + 5))) this.fail("expected four hex digits after \\u");
          this.pos += 4;
        } else if (escaped === undefined || !'"\\/bfnrt'.includes(escaped)) this.fail("expected a valid escape");
      }
      this.pos++;
    }
    this.pos++;
  }

  private number(): void {
    NUMBER.lastIndex = this.pos;
    if (!NUMBER.test(this.text)) this.fail("expected a number");
    this.pos = NUMBER.lastIndex;
    const next = this.text[this.pos];
    if (next !== undefined && /[0-9.eE+-]/.test(next)) this.fail("expected the end of the number");
  }
}

/** One-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

function locate(text: string, fallback: string): JsonSyntaxError {
  try {
    new Scanner(text).scanDocument();
  } catch (error) {
    if (error instanceof ScanError) return { message: error.message, offset: error.offset, ...lineColumn(text, error.offset) };
    throw error;
  }
  // JSON.parse refused what the scanner accepted: keep V8's word and its position when it gave one.
  const position = /at position (\d+)/.exec(fallback);
  if (!position) return { message: fallback };
  const offset = Number(position[1]);
  return { message: fallback, offset, ...lineColumn(text, offset) };
}

export function parseJsonText(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: locate(text, error instanceof Error ? error.message : String(error)) };
  }
}
