import { Component, type JSX } from "preact";
import { CopyButton } from "../../ui/copy-button.js";
import { highlight } from "./highlight.js";

interface CodeProps {
  code: string;
  /** The fence's info string's first word as the model wrote it; empty when it named none. */
  lang: string;
}

/**
 * A fenced block: its language named above it, a copy button, and the code
 * highlighted when the language is one the page knows. Redrawn only when its
 * text changed, so a reply streaming below it costs it nothing.
 */
export class CodeBlock extends Component<CodeProps> {
  override shouldComponentUpdate(next: CodeProps): boolean {
    return next.code !== this.props.code || next.lang !== this.props.lang;
  }
  override render(): JSX.Element {
    const { code, lang } = this.props;
    const tokens = highlight(code, lang);
    return (
      <div class="md-code-block">
        <div class="md-code-bar">
          <span class="md-code-lang">{lang || "text"}</span>
          <CopyButton text={code} label={lang ? `Copy ${lang} code` : "Copy code"} />
        </div>
        {/* Focusable so a keyboard can scroll a line wider than the message. */}
        <pre class="md-code" data-lang={lang || undefined} data-highlighted={tokens ? "true" : undefined} tabIndex={0}>
          <code>{tokens ?? code}</code>
        </pre>
      </div>
    );
  }
}
