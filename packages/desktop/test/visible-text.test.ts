import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { characterName, isHidden, visiblePieces, visibleString, type Piece } from "../src/features/requests/visible-text.js";

/** Pieces as one string: text as it is, a mark as [label], a kept line break as a real one. */
function drawn(pieces: Piece[]): string {
  return pieces.map((p) => (p.kind === "text" ? p.text : p.kind === "mark" ? `[${p.text}]` : "\n")).join("");
}

const hex = (code: number) => String.fromCodePoint(code);

describe("visible text on the approval card", () => {
  test("every bidi control, zero-width and invisible character, odd space and control becomes a mark naming its code point", () => {
    const hidden = [
      ...[0x00, 0x07, 0x0b, 0x0c, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9b, 0x9f],
      ...[0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c],
      ...[0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x00ad, 0x180e, 0x034f],
      ...[0xe0000, 0xe0001, 0xe0020, 0xe0041, 0xe007f, 0xfe00, 0xfe0f, 0xe0100, 0xe01ef],
      ...[0x2028, 0x2029, 0x00a0, 0x1680, 0x2000, 0x2005, 0x200a, 0x202f, 0x205f, 0x3000],
      ...[0x115f, 0x1160, 0x3164, 0xffa0, 0x17b4, 0x17b5, 0x2800, 0xfff9, 0x206a],
    ];
    for (const code of hidden) {
      const { pieces } = visiblePieces(`a${hex(code)}b`);
      const label = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
      assert.deepEqual(drawn(pieces), `a[${label}]b`, `${label} is shown`);
      assert.equal(isHidden(hex(code)), true);
    }
  });

  test("ordinary text of any script stays text, one piece", () => {
    for (const plain of ["ls -la ~/src", "café", "日本語のファイル", "עברית", "العربية", "emoji 🎉", "tab-free", "a b"]) {
      assert.deepEqual(visiblePieces(plain).pieces, [{ kind: "text", text: plain }], plain);
    }
  });

  test("rm -rf ~ behind a right-to-left override: the override shows as a mark and the command reads in stored order", () => {
    const command = `echo "\u202E" ; rm -rf ~ ; echo "\u202C"`;
    const { pieces } = visiblePieces(command, { multiline: true });
    assert.equal(drawn(pieces), `echo "[U+202E]" ; rm -rf ~ ; echo "[U+202C]"`);
    const marks = pieces.filter((p) => p.kind === "mark");
    assert.deepEqual(
      marks.map((p) => (p.kind === "mark" ? p.name : "")),
      ["right-to-left override (U+202E)", "pop directional formatting (U+202C)"],
    );
    assert.equal(visibleString(command), `echo "<U+202E>" ; rm -rf ~ ; echo "<U+202C>"`);
  });

  test("a command keeps its line breaks and tabs; a one-line value marks them", () => {
    assert.equal(drawn(visiblePieces("make\n\tnpm test\r\n", { multiline: true }).pieces), "make\n\tnpm test[\\r]\n");
    assert.equal(drawn(visiblePieces("dir\nname\tx").pieces), "dir[\\n]name[\\t]x");
    assert.equal(characterName(0x09), "tab (U+0009)");
  });

  test("an unpaired surrogate is a mark; a pair is one character", () => {
    assert.equal(drawn(visiblePieces("x\uD800y\uDC00z").pieces), "x[U+D800]y[U+DC00]z");
    assert.equal(drawn(visiblePieces("\uD83C\uDF89").pieces), "🎉");
  });

  test("past the limit, characters are counted, not shown", () => {
    const { pieces, omitted } = visiblePieces("🎉🎉abc\u202Edef", { limit: 4 });
    assert.equal(drawn(pieces), "🎉🎉ab");
    assert.equal(omitted, 5);
  });

  test("names: known characters by name, tag characters and variation selectors by family, the rest by code point", () => {
    assert.equal(characterName(0x202e), "right-to-left override (U+202E)");
    assert.equal(characterName(0xe0041), "tag character (U+E0041)");
    assert.equal(characterName(0xfe0f), "variation selector (U+FE0F)");
    assert.equal(characterName(0x2062), "invisible character U+2062");
  });
});
