import assert from "node:assert/strict";
import { test } from "node:test";
import { parseFrontmatter } from "../../src/resources/frontmatter.js";

test("no frontmatter: everything is body", () => {
  assert.deepEqual(parseFrontmatter("# Title\nname: not a key\n"), { attributes: {}, body: "# Title\nname: not a key\n", problems: [] });
  assert.deepEqual(parseFrontmatter("").attributes, {});
  assert.equal(parseFrontmatter(" ---\nname: x\n---\n").attributes.name, undefined, "the fence must start the file");
});

test("flat keys, BOM, CRLF, comments, blank lines and the ... terminator", () => {
  const text = "\uFEFF---\r\n# a comment\r\nname: review\r\n\r\ndescription: Reviews code: diffs, style # not a comment? it is\r\nallowed-tools: read bash\r\n...\r\nBody line\r\n";
  const fm = parseFrontmatter(text);
  assert.deepEqual(fm.attributes, { name: "review", description: "Reviews code: diffs, style", "allowed-tools": "read bash" });
  assert.equal(fm.body, "Body line\n");
  assert.deepEqual(fm.problems, []);
});

test("quoted values keep colons and hashes; escapes and '' work", () => {
  const fm = parseFrontmatter(['---', 'a: "x: y # z"', 'b: "say \\"hi\\"\\n\\\\"', "c: 'it''s # fine'", 'd: ""', "e: 'open", "---", ""].join("\n"));
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

test("nested maps and lists are skipped, later keys win, junk lines are reported", () => {
  const fm = parseFrontmatter(["---", "metadata:", "  owner: me", "  level: 2", "tags:", "  - a", "  - b", "name: first", "name: second", "this is not a key", "---", "x"].join("\n"));
  assert.deepEqual(fm.attributes, { name: "second" });
  assert.deepEqual(fm.problems, ['frontmatter line 10 is not "key: value": this is not a key']);
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
