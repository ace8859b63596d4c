import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { Lexer } from "marked";
import type { ComponentChildren, VNode } from "preact";
import { CodeBlock } from "../src/features/transcript/code-block.js";
import { highlight } from "../src/features/transcript/highlight.js";
import { renderBlocks, safeHref } from "../src/features/transcript/md-render.js";

/** Every element of a drawn tree, depth first; components are kept as they are, not run. */
function elements(children: ComponentChildren): VNode<Record<string, unknown>>[] {
  if (Array.isArray(children)) return children.flatMap(elements);
  if (children === null || typeof children !== "object" || !("type" in children)) return [];
  const node = children as VNode<Record<string, unknown>>;
  return [node, ...elements(node.props.children as ComponentChildren)];
}

/** The text a tree shows, without markup. */
function text(children: ComponentChildren): string {
  if (Array.isArray(children)) return children.map(text).join("");
  if (typeof children === "string" || typeof children === "number") return String(children);
  if (children === null || typeof children !== "object" || !("type" in children)) return "";
  return text((children as VNode<{ children?: ComponentChildren }>).props.children);
}

const draw = (markdown: string) => renderBlocks(Lexer.lex(markdown, { gfm: true }));
const tags = (markdown: string) => elements(draw(markdown)).map((e) => e.type);

describe("Markdown tokens drawn as elements", () => {
  test("a table becomes a table with column headers, aligned cells and rows", () => {
    const tree = elements(draw("| a | b |\n| :- | -: |\n| 1 | **2** |"));
    const kinds = tree.map((e) => e.type);
    for (const tag of ["table", "thead", "tbody", "th", "td", "strong"]) assert.ok(kinds.includes(tag), tag);
    const th = tree.filter((e) => e.type === "th");
    assert.deepEqual(
      th.map((e) => e.props.scope),
      ["col", "col"],
    );
    const right = tree.find((e) => e.type === "td" && text(e) === "2");
    assert.deepEqual(right?.props.style, { textAlign: "right" });
  });

  test("block quotes and nested lists keep their nesting", () => {
    assert.deepEqual(tags("> quoted *words*"), ["blockquote", "p", "em"]);
    assert.deepEqual(tags("1. one\n   - inner\n2. two"), ["ol", "li", "ul", "li", "li"]);
    const ordered = elements(draw("3. three\n4. four")).find((e) => e.type === "ol");
    assert.equal(ordered?.props.start, 3);
  });

  test("http, https and mailto links open apart from the page; any other address is text", () => {
    const links = elements(
      draw("[a](https://x.test/p) [b](mailto:me@x.test) [c](javascript:alert(1)) [d](data:text/html,hi) [e](./rel) <http://y.test>"),
    ).filter((e) => e.type === "a");
    assert.deepEqual(
      links.map((e) => [text(e), e.props.href, e.props.target, e.props.rel]),
      [
        ["a", "https://x.test/p", "_blank", "noopener noreferrer"],
        ["b", "mailto:me@x.test", "_blank", "noopener noreferrer"],
        ["http://y.test", "http://y.test", "_blank", "noopener noreferrer"],
      ],
    );
    assert.ok(text(draw("[c](javascript:alert(1))")).includes("c (javascript:alert(1))"));
    assert.equal(safeHref("JavaScript:alert(1)"), false);
    assert.equal(safeHref("//evil.test"), false);
  });

  test("raw HTML and images stay text: nothing is fetched or run", () => {
    const tree = draw('<img src=x onerror="alert(1)">\n\nhi <b>there</b> ![cat](https://x.test/cat.png)');
    const kinds = elements(tree).map((e) => e.type);
    assert.ok(!kinds.includes("img") && !kinds.includes("b"), kinds.join());
    assert.ok(text(tree).includes('<img src=x onerror="alert(1)">'));
    assert.ok(text(tree).includes("<b>there</b>"));
  });

  test("a fence becomes a code block with its language; known languages are highlighted as spans", () => {
    const block = elements(draw("```ts title=a.ts\nconst x = 1;\n```")).find((e) => e.type === (CodeBlock as unknown));
    assert.deepEqual(block?.props, { code: "const x = 1;", lang: "ts" });
    const spans = elements(highlight("const x = 1; // one", "TypeScript"));
    assert.deepEqual(
      spans.map((e) => [e.props.class, text(e)]),
      [
        ["hljs-keyword", "const"],
        ["hljs-number", "1"],
        ["hljs-comment", "// one"],
      ],
    );
    for (const lang of ["js", "json", "bash", "sh", "py", "go", "rs", "diff", "css", "html", "yaml", "md"]) assert.ok(highlight("x", lang), lang);
    assert.equal(highlight("x", "no-such-language"), undefined);
    assert.equal(highlight("x", ""), undefined);
  });
});
