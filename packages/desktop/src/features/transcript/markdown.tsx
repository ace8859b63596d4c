import { Component, type ComponentChildren, type JSX } from "preact";

/**
 * A small Markdown subset for model text: paragraphs, headings, fenced code,
 * inline code, bold, bullet and numbered lists, links shown as their text and
 * address. Everything becomes Preact text nodes: model text never reaches
 * innerHTML, so it cannot inject markup.
 */
export function Markdown({ text }: { text: string }): JSX.Element {
  return (
    <div class="md">
      {parse(text).map((block, n) => (
        <MarkdownBlock key={n} block={block} />
      ))}
    </div>
  );
}

/**
 * One block, redrawn only when its source lines changed: while a reply
 * streams, only its last block grows, so a frame costs that block alone and
 * not the whole message so far.
 */
class MarkdownBlock extends Component<{ block: Block }> {
  override shouldComponentUpdate(next: { block: Block }): boolean {
    return next.block.source !== this.props.block.source;
  }
  override render(): JSX.Element {
    return drawBlock(this.props.block);
  }
}

/** `source`: the block's own lines as written, which alone decide how it is drawn. */
type Block = { source: string } & (
  | { kind: "p"; lines: string[] }
  | { kind: "code"; lang: string; lines: string[] }
  | { kind: "list"; ordered: boolean; items: string[] }
  | { kind: "heading"; level: number; text: string }
);

function parse(text: string): Block[] {
  const out: Block[] = [];
  const lines = text.split("\n");
  let i = 0;
  let start = 0;
  const push = (block: DistributiveOmit<Block, "source">) => out.push({ ...block, source: lines.slice(start, i).join("\n") } as Block);
  while (i < lines.length) {
    start = i;
    const line = lines[i]!;
    const fence = /^\s*(```|~~~)(.*)$/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      // An unclosed fence (still streaming) runs to the end.
      while (i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!)) body.push(lines[i++]!);
      i++;
      push({ kind: "code", lang: fence[2]!.trim(), lines: body });
      continue;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      i++;
      push({ kind: "heading", level: heading[1]!.length, text: heading[2]! });
      continue;
    }
    const bullet = /^\s*([-*+]|\d+[.)])\s+/.exec(line);
    if (bullet) {
      const ordered = /\d/.test(bullet[1]!);
      const items: string[] = [];
      while (i < lines.length) {
        const m = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(lines[i]!);
        if (m) items.push(m[2]!);
        else if (lines[i]!.trim() !== "" && /^\s+/.test(lines[i]!) && items.length > 0) items[items.length - 1] += " " + lines[i]!.trim();
        else break;
        i++;
      }
      push({ kind: "list", ordered, items });
      continue;
    }
    const para: string[] = [];
    while (
      i < lines.length &&
      lines[i]!.trim() !== "" &&
      !/^\s*(```|~~~)/.test(lines[i]!) &&
      !/^#{1,6}\s/.test(lines[i]!) &&
      !/^\s*([-*+]|\d+[.)])\s+/.test(lines[i]!)
    ) {
      para.push(lines[i++]!);
    }
    push({ kind: "p", lines: para });
  }
  return out;
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

function drawBlock(block: Block): JSX.Element {
  switch (block.kind) {
    case "code":
      return (
        <pre class="md-code" data-lang={block.lang || undefined}>
          <code>{block.lines.join("\n")}</code>
        </pre>
      );
    case "heading":
      // Real headings would break the page's outline: a model's "# Title" is strong text here.
      return (
        <p class="md-heading">
          <strong>{inline(block.text)}</strong>
        </p>
      );
    case "list": {
      const items = block.items.map((item, k) => <li key={k}>{inline(item)}</li>);
      return block.ordered ? <ol>{items}</ol> : <ul>{items}</ul>;
    }
    case "p":
      return <p>{inline(block.lines.join("\n"))}</p>;
  }
}

/** Inline code, bold, italics and links, in one left-to-right scan. */
function inline(text: string): ComponentChildren {
  const out: ComponentChildren[] = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)|(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])/g;
  let last = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1] !== undefined) out.push(<code class="md-inline">{m[1]}</code>);
    else if (m[2] !== undefined) out.push(<strong>{m[2]}</strong>);
    else if (m[3] !== undefined)
      out.push(
        <span class="md-link">
          {m[3]} <span class="md-url">({m[4]})</span>
        </span>,
      );
    else if (m[5] !== undefined) out.push(<em>{m[5]}</em>);
    last = pattern.lastIndex;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
