import type { ComponentChildren } from "preact";
import { createLowlight } from "lowlight";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import dockerfile from "highlight.js/lib/languages/dockerfile";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

/**
 * The grammars a coding agent's replies mostly hold, chosen by hand: all of
 * highlight.js would weigh ten times as much. A grammar brings its own
 * aliases (ts, js, sh, py, rs, html, yml, md, toml…).
 */
const lowlight = createLowlight({ bash, c, css, diff, dockerfile, go, ini, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml });

/** A node of lowlight's tree (hast): an element, a text, or (never from a grammar) a comment. */
type Node = ReturnType<typeof lowlight.highlight>["children"][number];

/** Past this, a block is shown plain: highlighting it on every streamed frame would stall the page. */
const MAX_HIGHLIGHTED = 64 * 1024;

/**
 * The code as elements, its tokens as spans with highlight.js class names;
 * undefined when the language is unknown (or absent) and the code stays plain
 * text. lowlight hands back a syntax tree, never an HTML string.
 */
export function highlight(code: string, lang: string): ComponentChildren[] | undefined {
  const name = lang.toLowerCase();
  if (!name || code.length > MAX_HIGHLIGHTED || !lowlight.registered(name)) return undefined;
  try {
    return lowlight.highlight(name, code).children.map(toElement);
  } catch {
    // A grammar that gives up on odd input leaves the code readable, only plain.
    return undefined;
  }
}

function toElement(node: Node, key: number): ComponentChildren {
  if (node.type === "text") return node.value;
  if (node.type !== "element") return null;
  const names = node.properties.className;
  return (
    <span key={key} class={Array.isArray(names) ? names.join(" ") : undefined}>
      {node.children.map(toElement)}
    </span>
  );
}
