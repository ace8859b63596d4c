import type { JSX } from "preact";
import { visiblePieces } from "./visible-text.js";

/**
 * Text drawn with every character showing: hidden ones as marks naming
 * their code point, a line feed (with `multiline`) as a break after a faint
 * arrow. With `ordered`, the characters are drawn left to right in the order
 * they are stored, whatever their script, so what the user reads is what
 * runs; for commands, paths and prefixes.
 */
export function VisibleText({ text, multiline, ordered, limit }: { text: string; multiline?: boolean; ordered?: boolean; limit?: number }): JSX.Element {
  const { pieces, omitted } = visiblePieces(text, { ...(multiline ? { multiline } : {}), ...(limit !== undefined ? { limit } : {}) });
  return (
    <span class={ordered ? "visible-text visible-ordered" : "visible-text"}>
      {pieces.map((piece, i) =>
        piece.kind === "text" ? (
          piece.text
        ) : piece.kind === "mark" ? (
          <span key={i} class="char-mark" title={piece.name}>
            {piece.text}
          </span>
        ) : (
          <span key={i}>
            <span class="char-newline" aria-hidden="true">
              ↵
            </span>
            {"\n"}
          </span>
        ),
      )}
      {omitted > 0 && <span class="text-omitted"> … {omitted.toLocaleString("en")} more characters not shown</span>}
    </span>
  );
}
