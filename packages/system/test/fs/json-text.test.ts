import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { lineColumn, parseJsonText } from "../../src/fs/json-text.js";

function errorOf(text: string) {
  const parsed = parseJsonText(text);
  assert.equal(parsed.ok, false, `${JSON.stringify(text)} should not parse`);
  return (parsed as { ok: false; error: { message: string; line?: number; column?: number } }).error;
}

describe("parseJsonText", () => {
  test("parses valid JSON", () => {
    assert.deepEqual(parseJsonText('{"a": [1, 2.5e3, "x\\u00e9"], "b": null}'), { ok: true, value: { a: [1, 2500, "xé"], b: null } });
  });

  test("locates errors that V8 reports without a position", () => {
    const text = '{\n  "theme": "dark",\n  "retry": }\n';
    const error = errorOf(text);
    assert.equal(error.line, 3);
    assert.equal(error.column, 12);
    assert.match(error.message, /expected a value but found "}"/);
  });

  test("one-based positions for a trailing comma, a missing brace, junk after the value and a bad literal", () => {
    assert.deepEqual([errorOf('{"a": 1,}').line, errorOf('{"a": 1,}').column], [1, 9]);
    assert.deepEqual([errorOf('{\n"a": 1\n').line, errorOf('{\n"a": 1\n').column], [3, 1]);
    assert.deepEqual([errorOf("{}\n  x").line, errorOf("{}\n  x").column], [2, 3]);
    assert.deepEqual([errorOf('{"a": tru}').line, errorOf('{"a": tru}').column], [1, 7]);
    assert.deepEqual([errorOf('{"a": 01}').line, errorOf('{"a": 01}').column], [1, 8]);
    assert.deepEqual([errorOf('{"a": "x\ny"}').line, errorOf('{"a": "x\ny"}').column], [1, 9]);
    assert.deepEqual([errorOf('{"a": "\\q"}').line, errorOf('{"a": "\\q"}').column], [1, 9]);
  });

  test("an empty text is an error at 1:1", () => {
    const error = errorOf("");
    assert.deepEqual([error.line, error.column], [1, 1]);
  });

  test("lineColumn counts CRLF lines like LF lines", () => {
    assert.deepEqual(lineColumn("a\r\nbc", 4), { line: 2, column: 2 });
  });
});
