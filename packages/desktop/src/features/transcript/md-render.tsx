import type { ComponentChildren, JSX } from "preact";
import type { Token, Tokens } from "marked";
import { CodeBlock } from "./code-block.js";

/**
 * Markdown tokens (marked's lexer) drawn as Preact elements. Text stays text:
 * raw HTML in a reply shows as the characters it is, and nothing reaches
 * innerHTML. Only http, https and mailto links become links, opening apart
 * from the page; any other address shows as text beside its label.
 */
export function renderBlock(token: Token, key?: number): ComponentChildren {
  switch (token.type) {
    case "space":
    case "def":
      return null;
    case "paragraph":
      return <p key={key}>{renderInline(token.tokens ?? [])}</p>;
    case "heading":
      // Real headings would break the page's outline: a model's "# Title" is a strong line here.
      return (
        <p key={key} class={`md-heading md-h${token.depth}`}>
          <strong>{renderInline(token.tokens ?? [])}</strong>
        </p>
      );
    case "code":
      return <CodeBlock key={key} code={token.text} lang={firstWord(token.lang)} />;
    case "blockquote":
      return <blockquote key={key}>{renderBlocks(token.tokens ?? [])}</blockquote>;
    case "list":
      return renderList(token as Tokens.List, key);
    case "table":
      return renderTable(token as Tokens.Table, key);
    case "hr":
      return <hr key={key} />;
    case "text":
      // A tight list item's text: inline tokens without a paragraph around them.
      return token.tokens ? renderInline(token.tokens) : token.text;
    default:
      // Raw HTML and anything unknown: shown as written.
      return <p key={key}>{token.raw.trimEnd()}</p>;
  }
}

export function renderBlocks(tokens: Token[]): ComponentChildren[] {
  return tokens.map((token, n) => renderBlock(token, n));
}

function renderList(list: Tokens.List, key?: number): JSX.Element {
  const items = list.items.map((item, n) => (
    <li key={n} class={item.task ? "md-task" : undefined}>
      {item.task && <span class="md-check">{item.checked ? "☑ " : "☐ "}</span>}
      {renderBlocks(item.tokens.filter((t) => t.type !== "checkbox"))}
    </li>
  ));
  if (!list.ordered) return <ul key={key}>{items}</ul>;
  const start = typeof list.start === "number" && list.start !== 1 ? list.start : undefined;
  return (
    <ol key={key} start={start}>
      {items}
    </ol>
  );
}

function renderTable(table: Tokens.Table, key?: number): JSX.Element {
  const align = (cell: Tokens.TableCell) => (cell.align ? { textAlign: cell.align } : undefined);
  return (
    // Focusable so a keyboard can scroll a table wider than the message.
    <div key={key} class="md-table-wrap" tabIndex={0}>
      <table class="md-table">
        <thead>
          <tr>
            {table.header.map((cell, n) => (
              <th key={n} scope="col" style={align(cell)}>
                {renderInline(cell.tokens)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, r) => (
            <tr key={r}>
              {row.map((cell, n) => (
                <td key={n} style={align(cell)}>
                  {renderInline(cell.tokens)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function renderInline(tokens: Token[]): ComponentChildren[] {
  return tokens.map(inlineToken);
}

function inlineToken(token: Token, key: number): ComponentChildren {
  switch (token.type) {
    case "text":
      return token.tokens ? renderInline(token.tokens) : token.text;
    case "escape":
      return token.text;
    case "strong":
      return <strong key={key}>{renderInline(token.tokens ?? [])}</strong>;
    case "em":
      return <em key={key}>{renderInline(token.tokens ?? [])}</em>;
    case "del":
      return <del key={key}>{renderInline(token.tokens ?? [])}</del>;
    case "codespan":
      return (
        <code key={key} class="md-inline">
          {token.text}
        </code>
      );
    case "br":
      return <br key={key} />;
    case "link":
    case "image":
      // An image is never fetched (the page loads nothing from elsewhere): it stays a link to itself.
      return renderLink(token.href, renderInline(token.tokens ?? []), token.text, key);
    default:
      return token.raw;
  }
}

function renderLink(href: string, label: ComponentChildren, text: string, key: number): JSX.Element {
  if (safeHref(href)) {
    return (
      <a key={key} class="md-a" href={href} target="_blank" rel="noopener noreferrer">
        {label}
      </a>
    );
  }
  return (
    <span key={key} class="md-link">
      {label}
      {href && href !== text && <span class="md-url"> ({href})</span>}
    </span>
  );
}

const SAFE_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);

/** Only absolute addresses in a known-safe scheme; `javascript:`, `data:` and relative paths are not links. */
export function safeHref(href: string): boolean {
  try {
    return SAFE_PROTOCOLS.has(new URL(href).protocol);
  } catch {
    return false;
  }
}

function firstWord(info: string | undefined): string {
  return (info ?? "").trim().split(/\s+/)[0] ?? "";
}
