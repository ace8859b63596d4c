import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Type } from "typebox";
import { checker } from "../src/problems.js";

const Entry = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 4,
      pattern: "^[a-z]*$",
      problem: "must be a non-empty string",
      problems: { maxLength: "is too long", pattern: "{value} is not lower case" },
    }),
    size: Type.Optional(Type.Integer({ minimum: 1, problem: "must be a positive integer" })),
    tags: Type.Optional(
      Type.Array(Type.String({ problem: "must be text" }), { maxItems: 2, problem: "must be a list", problems: { maxItems: "holds {length} tags" } }),
    ),
    version: Type.Optional(Type.Literal(1, { ofParent: true, problem: "has version {value}" })),
    text: Type.Optional(Type.Intersect([Type.String({ problem: "must be a string" }), Type.String({ pattern: "\\S", problem: "must not be blank" })])),
  },
  { additionalProperties: false, problem: "must be an object", unknownKey: "has the unknown key {key}" },
);
const entry = checker(Entry);

describe("a value's first problem, in the schema's words", () => {
  test("a good value has none, and reads typed", () => {
    assert.equal(entry.problem({ name: "ab", size: 2, tags: ["x"] }), undefined);
    const read = entry.read({ name: "ab" });
    assert.ok(read.ok && read.value.name === "ab");
  });

  test("the path names the field; unknown keys come first, then fields in the schema's order", () => {
    assert.equal(entry.problem(3, "e"), "e must be an object");
    assert.equal(entry.problem({ name: "a", zz: 1, size: 0 }, "e"), 'e has the unknown key "zz"');
    assert.equal(entry.problem({ name: 3, size: 0 }, "e"), "e.name must be a non-empty string");
    assert.equal(entry.problem({ size: 0 }, "e"), "e.name must be a non-empty string");
    assert.equal(entry.problem({ name: "a", size: 0 }, "e"), "e.size must be a positive integer");
    assert.equal(entry.problem({ name: "a", size: 1 }), undefined);
    assert.equal(entry.problem({ name: "a", tags: ["x", 3] }), "tags[1] must be text");
  });

  test("the failing keyword picks the words: the plain problem first, then `problems` in their order", () => {
    assert.equal(entry.problem({ name: "" }), "name must be a non-empty string");
    assert.equal(entry.problem({ name: "ABCDE" }), "name is too long");
    assert.equal(entry.problem({ name: "AB" }), 'name "AB" is not lower case');
    assert.equal(entry.problem({ name: "a", tags: ["x", "y", "z"] }), "tags holds 3 tags");
  });

  test("ofParent words are said of the holder; each part of an intersection speaks in turn", () => {
    assert.equal(entry.problem({ name: "a", version: 2 }, "file"), "file has version 2");
    assert.equal(entry.problem({ name: "a", text: 3 }), "text must be a string");
    assert.equal(entry.problem({ name: "a", text: " " }), "text must not be blank");
  });
});
