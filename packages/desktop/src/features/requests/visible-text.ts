/**
 * Text a card asks the user to judge (a command, a path, a prefix), made so
 * that every character shows. A character that draws nothing, draws like a
 * plain space, or moves the characters around it (bidi controls) becomes a
 * mark naming its code point, so `rm -rf ~` cannot hide behind an override
 * and a path cannot hold a character the user does not see.
 *
 * Pure and DOM-free: the unit tests import it in Node.
 */

/** A run of ordinary characters, a mark standing for one hidden character, or a line break kept as one. */
export type Piece = { kind: "text"; text: string } | { kind: "mark"; text: string; name: string } | { kind: "newline" };

export interface Shown {
  pieces: Piece[];
  /** Characters (code points) past the limit, left out. */
  omitted: number;
}

/**
 * Controls (C0, DEL, C1), format characters (bidi controls, zero-width ones,
 * the soft hyphen, tag characters, U+FEFF), line and paragraph separators,
 * every space but U+0020, unpaired surrogates, and the characters that are
 * letters or marks by category yet draw nothing: variation selectors, the
 * combining grapheme joiner, the Hangul fillers, the Khmer inherent vowels
 * and the blank Braille pattern; and the whole tag block, whose unassigned
 * code points a font draws as nothing too.
 */
const HIDDEN =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each entry is one code point to hide on its own, combining marks included
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u034F\u115F\u1160\u17B4\u17B5\u2800\u3164\uFFA0\uFE00-\uFE0F\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]|(?!\u0020)\p{Zs}/u;

const NAMES: Readonly<Record<number, string>> = {
  0x00: "null",
  0x09: "tab",
  0x0a: "line feed",
  0x0d: "carriage return",
  0x1b: "escape",
  0x7f: "delete",
  0xa0: "no-break space",
  0xad: "soft hyphen",
  0x034f: "combining grapheme joiner",
  0x061c: "Arabic letter mark",
  0x180e: "Mongolian vowel separator",
  0x200b: "zero width space",
  0x200c: "zero width non-joiner",
  0x200d: "zero width joiner",
  0x200e: "left-to-right mark",
  0x200f: "right-to-left mark",
  0x2028: "line separator",
  0x2029: "paragraph separator",
  0x202a: "left-to-right embedding",
  0x202b: "right-to-left embedding",
  0x202c: "pop directional formatting",
  0x202d: "left-to-right override",
  0x202e: "right-to-left override",
  0x202f: "narrow no-break space",
  0x2060: "word joiner",
  0x2066: "left-to-right isolate",
  0x2067: "right-to-left isolate",
  0x2068: "first strong isolate",
  0x2069: "pop directional isolate",
  0x3000: "ideographic space",
  0xfeff: "zero width no-break space",
};

/** U+XXXX, at least four hex digits. */
export function codePointLabel(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** What a screen reader says and a tooltip shows for a hidden character. */
export function characterName(code: number): string {
  const known = NAMES[code];
  if (known) return `${known} (${codePointLabel(code)})`;
  if (code >= 0xe0000 && code <= 0xe007f) return `tag character (${codePointLabel(code)})`;
  if ((code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef)) return `variation selector (${codePointLabel(code)})`;
  return `invisible character ${codePointLabel(code)}`;
}

export function isHidden(char: string): boolean {
  return HIDDEN.test(char);
}

function mark(char: string, code: number): Piece {
  const text = char === "\t" ? "\\t" : char === "\n" ? "\\n" : char === "\r" ? "\\r" : codePointLabel(code);
  return { kind: "mark", text, name: characterName(code) };
}

/**
 * `text` as pieces to draw, at most `limit` code points of it. With
 * `multiline`, a line feed stays a line break (a command's second line) and
 * a tab a tab; without it, both are marks like any other hidden character,
 * for a value that should be one line (a path, a prefix).
 */
export function visiblePieces(text: string, options: { multiline?: boolean; limit?: number } = {}): Shown {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const pieces: Piece[] = [];
  let run = "";
  let count = 0;
  let omitted = 0;
  const flush = () => {
    if (run !== "") pieces.push({ kind: "text", text: run });
    run = "";
  };
  // for..of walks code points, and yields an unpaired surrogate on its own.
  for (const char of text) {
    if (count >= limit) {
      omitted++;
      continue;
    }
    count++;
    if (char === "\n" && options.multiline) {
      flush();
      pieces.push({ kind: "newline" });
    } else if (isHidden(char) && !(char === "\t" && options.multiline)) {
      flush();
      pieces.push(mark(char, char.codePointAt(0)!));
    } else {
      run += char;
    }
  }
  flush();
  return { pieces, omitted };
}

/** One line of plain text with each hidden character written as `<U+XXXX>`: for a button's label or a title, where no mark can be drawn. */
export function visibleString(text: string): string {
  let out = "";
  for (const char of text) out += isHidden(char) ? `<${codePointLabel(char.codePointAt(0)!)}>` : char;
  return out;
}
