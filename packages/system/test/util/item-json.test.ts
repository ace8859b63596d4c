import assert from "node:assert/strict";
import { test } from "node:test";
import { attachItemJson, messageParts } from "../../src/util/item-json.js";

interface Answer {
  scope: string;
  root: string;
  files: { path: string; lines: string[] }[];
  filesOmitted?: number;
}

function answer(count: number): Answer {
  const files = Array.from({ length: count }, (_, i) => ({ path: `dir/ü-${i}.ts`, lines: [` line "${i}"`, "+\u2028 added 𝄞", "-\\ gone"] }));
  return { scope: "uncommitted", root: "/tmp/r", files, filesOmitted: 3 };
}

const prepared = (value: Answer): Answer =>
  attachItemJson(
    value,
    "files",
    value.files.map((file) => JSON.stringify(file)),
  );

test("the parts join to the message's JSON: same value, the array last", () => {
  const result = prepared(answer(500));
  const message = { id: 7, result };
  const parts = messageParts(message, 1024);
  assert.ok(parts !== undefined);
  const text = parts.join("");
  assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(message)));
  assert.ok(text.endsWith("]}}"));
  assert.deepEqual(Object.keys(JSON.parse(text).result), ["scope", "root", "filesOmitted", "files"]);
  // Cut at about the size asked for, and never inside an item.
  assert.ok(parts.length > 10);
  for (const part of parts.slice(0, -1)) assert.ok(part.length >= 1024 && part.length < 1024 + 200, `a part of ${part.length} characters`);
});

test("the text is invisible to JSON.stringify and to the value's keys", () => {
  const plain = answer(3);
  const result = prepared(answer(3));
  assert.equal(JSON.stringify(result), JSON.stringify(plain));
  assert.deepEqual(Object.keys(result), Object.keys(plain));
  assert.deepEqual({ ...result }, { ...plain });
});

test("an empty array, and a result with nothing else, still make valid JSON", () => {
  const empty = attachItemJson({ files: [] as unknown[] }, "files", []);
  assert.deepEqual(JSON.parse(messageParts({ id: "a", result: empty })!.join("")), { id: "a", result: { files: [] } });
});

test("no item JSON, no result, or a changed array: undefined, and the caller serializes the whole", () => {
  assert.equal(messageParts({ id: 1, result: answer(2) }), undefined);
  assert.equal(messageParts({ method: "item/agentMessage/delta", params: { delta: "x" } }), undefined);
  assert.equal(messageParts({ id: 1, result: null }), undefined);
  const replaced = prepared(answer(2));
  replaced.files = answer(2).files;
  assert.equal(messageParts({ id: 1, result: replaced }), undefined);
  const grown = prepared(answer(2));
  grown.files.push({ path: "late", lines: [] });
  assert.equal(messageParts({ id: 1, result: grown }), undefined);
});

test("texts that do not match the items are refused when attached", () => {
  assert.throws(() => attachItemJson(answer(2), "files", ["{}"]), /does not match/);
  assert.throws(() => attachItemJson({ files: "no" }, "files", []), /does not match/);
});
