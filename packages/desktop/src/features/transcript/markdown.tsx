import { Component, type ComponentChildren, type JSX } from "preact";
import { Lexer, type Token } from "marked";
import { renderBlock } from "./md-render.js";
import "./markdown.css";

/**
 * Model text as Markdown (GitHub's flavour: tables, block quotes, nested
 * lists, fenced code, links). marked only lexes; its tokens are drawn as
 * Preact elements by md-render, so model text never reaches innerHTML.
 */
export function Markdown({ text }: { text: string }): JSX.Element {
  return (
    <div class="md">
      {lex(text).map((token, n) => (
        <MarkdownBlock key={n} token={token} />
      ))}
    </div>
  );
}

function lex(text: string): Token[] {
  try {
    return Lexer.lex(text, { gfm: true });
  } catch {
    // The lexer refuses input it cannot finish; the words are still worth showing.
    return [{ type: "paragraph", raw: text, text, tokens: [{ type: "text", raw: text, text }] }];
  }
}

/**
 * One top-level block, redrawn only when its source changed: while a reply
 * streams, only its last block grows, so a frame costs that block alone and
 * not the whole message so far.
 */
class MarkdownBlock extends Component<{ token: Token }> {
  override shouldComponentUpdate(next: { token: Token }): boolean {
    return next.token.raw !== this.props.token.raw || next.token.type !== this.props.token.type;
  }
  override render(): ComponentChildren {
    return renderBlock(this.props.token);
  }
}
