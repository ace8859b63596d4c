import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { parseFrontmatter } from "../../src/resources/frontmatter.js";

test("no frontmatter: everything is body", () => {
  assert.deepEqual(parseFrontmatter("# Title\nname: not a key\n"), { attributes: {}, values: {}, body: "# Title\nname: not a key\n", problems: [] });
  assert.deepEqual(parseFrontmatter("").attributes, {});
  assert.equal(parseFrontmatter(" ---\nname: x\n---\n").attributes.name, undefined, "the fence must start the file");
});

test("flat keys, BOM, CRLF, comments, blank lines and the ... terminator", () => {
  const text =
    "\uFEFF---\r\n# a comment\r\nname: review\r\n\r\ndescription: Reviews code: diffs, style # not a comment? it is\r\nallowed-tools: read bash\r\n...\r\nBody line\r\n";
  const fm = parseFrontmatter(text);
  assert.deepEqual(fm.attributes, { name: "review", description: "Reviews code: diffs, style", "allowed-tools": "read bash" });
  assert.equal(fm.body, "Body line\n");
  assert.deepEqual(fm.problems, []);
});

test("quoted values keep colons and hashes; escapes and '' work", () => {
  const fm = parseFrontmatter(["---", 'a: "x: y # z"', 'b: "say \\"hi\\"\\n\\\\"', "c: 'it''s # fine'", 'd: ""', "e: 'open", "---", ""].join("\n"));
  assert.equal(fm.attributes.a, "x: y # z");
  assert.equal(fm.attributes.b, 'say "hi"\n\\');
  assert.equal(fm.attributes.c, "it's # fine");
  assert.equal(fm.attributes.d, "");
  assert.equal(fm.attributes.e, "open");
  assert.match(fm.problems.join(), /"e": the quoted value is never closed/);
});

test("block scalars and indented continuation lines", () => {
  const fm = parseFrontmatter(
    [
      "---",
      "literal: |",
      "  line one",
      "    indented",
      "  line three",
      "folded: >-",
      "  joined",
      "  together",
      "",
      "  new paragraph",
      "plain: starts here",
      "  and goes on",
      "nextline:",
      "  only below",
      "---",
      "",
      "",
      "body",
    ].join("\n"),
  );
  assert.equal(fm.attributes.literal, "line one\n  indented\nline three");
  assert.equal(fm.attributes.folded, "joined together\nnew paragraph");
  assert.equal(fm.attributes.plain, "starts here and goes on");
  assert.equal(fm.attributes.nextline, "only below");
  assert.equal(fm.body, "body", "blank lines after the fence are dropped");
});

test("nested maps and lists are values, not attributes; later keys win, junk lines are reported", () => {
  const fm = parseFrontmatter(
    ["---", "metadata:", "  owner: me", "  level: 2", "tags:", "  - a", "  - b", "name: first", "name: second", "this is not a key", "---", "x"].join("\n"),
  );
  assert.deepEqual(fm.attributes, { name: "second" });
  assert.deepEqual(fm.values, { metadata: { owner: "me", level: "2" }, tags: ["a", "b"], name: "second" });
  assert.deepEqual(fm.problems, ['frontmatter line 10 is not "key: value": this is not a key']);
});

test("lists and maps, block and flow, as a skill file writes them; every scalar stays text", () => {
  const fm = parseFrontmatter(
    [
      "---",
      "name: pdf-tools",
      "description: Fill in PDF forms: fields, checkboxes # and more",
      "allowed-tools: [read, 'bash', \"edit\"]",
      "license: MIT",
      "metadata:",
      "  version: 1.0",
      "  internal: true",
      "  owners:",
      "    - name: Ana",
      "      team: docs",
      "    - name: Bo",
      "  links: {home: 'https://example.com/a#b', empty: }",
      "triggers:",
      "- fill a form",
      '- "merge: PDFs"',
      "base: &base x",
      "---",
      "Body",
    ].join("\n"),
  );
  assert.deepEqual(fm.problems, []);
  assert.deepEqual(fm.attributes, {
    name: "pdf-tools",
    description: "Fill in PDF forms: fields, checkboxes",
    license: "MIT",
    base: "x",
  });
  assert.deepEqual(fm.values, {
    name: "pdf-tools",
    description: "Fill in PDF forms: fields, checkboxes",
    "allowed-tools": ["read", "bash", "edit"],
    license: "MIT",
    metadata: {
      version: "1.0",
      internal: "true",
      owners: [{ name: "Ana", team: "docs" }, { name: "Bo" }],
      links: { home: "https://example.com/a#b", empty: "" },
    },
    triggers: ["fill a form", "merge: PDFs"],
    base: "x",
  });
  assert.equal(fm.body, "Body");
});

test("a malformed list or map is a problem naming its key; the other keys and the flat reading stand", () => {
  const fm = parseFrontmatter(
    ["---", "name: ok", "tags: [a, b", "metadata:", "  a: 1", "  a: 2", "bomb: *nowhere", "description: [WIP] still text", "---"].join("\n"),
  );
  assert.equal(fm.attributes.name, "ok");
  assert.equal(fm.attributes.tags, "[a, b", "the flat reading of an unclosed list");
  assert.equal(fm.attributes.description, "[WIP] still text");
  assert.equal(fm.values.metadata, undefined);
  assert.deepEqual(
    fm.problems.map((p) => /^frontmatter "([\w-]+)": ./.exec(p)?.[1]),
    ["tags", "metadata", "bomb", "description"],
    fm.problems.join("\n"),
  );
});

test("aliases cannot blow a small header up", () => {
  const lines = ["---", "lol:", "  a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 0; i < 9; i++) lines.push(`  ${"bcdefghij"[i]}: &${"bcdefghij"[i]} [${Array(10).fill(`*${"abcdefghi"[i]}`).join(", ")}]`);
  lines.push("name: fine", "---");
  const fm = parseFrontmatter(lines.join("\n"));
  assert.equal(fm.attributes.name, "fine");
  assert.equal(fm.values.lol, undefined);
  assert.match(fm.problems.join(), /frontmatter "lol": .*alias/i);
});

test("the yaml package is loaded only for a header with a list or map", () => {
  const module = new URL("../../src/resources/frontmatter.js", import.meta.url).href;
  const script = `
    import { createRequire } from "node:module";
    const { parseFrontmatter } = await import(${JSON.stringify(module)});
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => /[\\/]node_modules[\\/]yaml[\\/]/.test(path));
    parseFrontmatter("---\\nname: flat\\ndescription: |\\n  text\\n---\\nbody");
    const before = loaded();
    parseFrontmatter("---\\ntags: [a]\\n---\\n");
    process.stdout.write(JSON.stringify([before, loaded()]));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.deepEqual(JSON.parse(out), [false, true]);
});

test("an unclosed fence is body, with a problem", () => {
  const fm = parseFrontmatter("---\nname: x\nno end");
  assert.deepEqual(fm.attributes, {});
  assert.equal(fm.body, "---\nname: x\nno end");
  assert.equal(fm.problems.length, 1);
});

test("keys like __proto__ stay plain data", () => {
  const fm = parseFrontmatter("---\n__proto__: polluted\nconstructor: c\n---\n");
  assert.equal(Object.getOwnPropertyDescriptor(fm.attributes, "__proto__")?.value, "polluted");
  assert.equal(fm.attributes.constructor, "c");
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(fm.attributes), Object.prototype);
});
