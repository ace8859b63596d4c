import assert from "node:assert/strict";
import { test } from "node:test";
import { expandPromptTemplate, parseSlashInput, splitArgs } from "../../src/resources/templates.js";

test("arguments split like a shell, without expansion", () => {
  assert.deepEqual(splitArgs(""), []);
  assert.deepEqual(splitArgs("   "), []);
  assert.deepEqual(splitArgs(" a  b\tc\n d "), ["a", "b", "c", "d"]);
  assert.deepEqual(splitArgs(`"the login bug" fast`), ["the login bug", "fast"]);
  assert.deepEqual(splitArgs(`'single $1 "kept"' x`), [`single $1 "kept"`, "x"]);
  assert.deepEqual(splitArgs(`"say \\"hi\\" \\\\ \\n"`), [`say "hi" \\ \\n`]);
  assert.deepEqual(splitArgs(`a"b c"d`), ["ab cd"]);
  assert.deepEqual(splitArgs(`"" ''`), ["", ""]);
  assert.deepEqual(splitArgs(`one\\ arg two`), ["one arg", "two"]);
  assert.deepEqual(splitArgs(`"unclosed rest of line`), ["unclosed rest of line"]);
  assert.deepEqual(splitArgs(`it's`), ["its"], "a lone quote opens a quoted part that runs to the end");
});

test("placeholders: $1..$9, $@, $ARGUMENTS and ${@:N:L}", () => {
  assert.equal(expandPromptTemplate("Fix $1 in $2.", `"the bug" src/a.ts`), "Fix the bug in src/a.ts.");
  assert.equal(expandPromptTemplate("[$3]", "a b"), "[]", "a missing argument is empty");
  assert.equal(expandPromptTemplate("all: $@ / $ARGUMENTS", `a "b c"`), "all: a b c / a b c");
  assert.equal(expandPromptTemplate("rest: ${@:2}; two: ${@:2:2}", "a b c d"), "rest: b c d; two: b c");
  assert.equal(expandPromptTemplate("$10", "x"), "x0", "only one digit is an index");
  assert.equal(expandPromptTemplate("$1 $2", `'$2' "$ARGUMENTS"`), "$2 $ARGUMENTS", "arguments are not expanded again");
  assert.equal(expandPromptTemplate("cost: $5.00 USD", ""), "cost: .00 USD", "a dollar amount reads as a placeholder: write prices in words");
  assert.equal(expandPromptTemplate("no args $", ""), "no args $");
});

test("a template without placeholders gets the arguments appended", () => {
  assert.equal(expandPromptTemplate("Review the code.\n", `  focus on "tests"  `), `Review the code.\n\nfocus on "tests"`);
  assert.equal(expandPromptTemplate("Review the code.\n", ""), "Review the code.\n");
});

test("slash input: name and the rest", () => {
  assert.deepEqual(parseSlashInput("/review"), { name: "review", args: "" });
  assert.deepEqual(parseSlashInput("/review  src/a.ts  --deep "), { name: "review", args: "src/a.ts  --deep" });
  assert.deepEqual(parseSlashInput("/skill:pdf fill\nthe form"), { name: "skill:pdf", args: "fill\nthe form" });
  assert.deepEqual(parseSlashInput("/fix\nmulti line"), { name: "fix", args: "multi line" });
  for (const text of ["review", " /review", "/", "/ review", "/usr/bin/env x", ""]) assert.equal(parseSlashInput(text), undefined, JSON.stringify(text));
});
