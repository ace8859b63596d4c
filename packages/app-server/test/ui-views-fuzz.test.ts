import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { checkView, detailsView, MAX_ITEM_VIEW_BYTES, MAX_WIDGET_VIEW_BYTES } from "../src/ui/views.js";
import { Random, seedFromEnv } from "./support/random.js";
import { schemaPath } from "./support/schema.js";
import { isValidViewJson, randomView } from "./support/view-trees.js";

// spec: Dialogs and extension UI (views); Limits and client reference.
// Whatever the validator accepts is a valid view by an independent checker
// and by the generated schema, within the limit; on plain data the two
// checkers agree both ways; nothing makes the validator throw or hang.

const BASE = "http://knightcode.invalid/app-server.schema.json";
const ajv = new Ajv2020({ strict: false });
ajv.addSchema({ ...(JSON.parse(readFileSync(schemaPath, "utf8")) as object), $id: BASE });
const schemaValid = ajv.getSchema(`${BASE}#/$defs/View`)!;

function assertSendable(view: unknown, maxBytes: number, what: string): void {
  const json = JSON.stringify(view);
  assert.ok(isValidViewJson(json, maxBytes), `${what}: accepted, but the independent checker refuses ${json.slice(0, 300)}`);
  assert.ok(schemaValid(view), `${what}: accepted, but the schema refuses it: ${JSON.stringify(schemaValid.errors?.slice(0, 2))}`);
  assert.deepEqual(JSON.parse(json), view, `${what}: the copy is plain data`);
}

/** A view nested `containers` deep, a text at the bottom. */
function nested(containers: number): unknown {
  let node: unknown = { type: "text", text: "bottom" };
  for (let i = 0; i < containers; i++) node = { type: i % 2 ? "list" : "stack", children: [node] };
  return node;
}

describe("spec: Dialogs and extension UI (views), fuzzed", () => {
  test("random plain trees: the validator and an independent checker agree, and a valid view comes back unchanged", () => {
    const seed = seedFromEnv("KNIGHTCODE_VIEW_SEED", 1201);
    const random = new Random(seed);
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const tree = randomView(random, { hostile: false, maxDepth: 11 });
      const maxBytes = random.chance(0.5) ? MAX_WIDGET_VIEW_BYTES : MAX_ITEM_VIEW_BYTES;
      const json = JSON.stringify(tree);
      const checked = checkView(tree, maxBytes);
      const expected = json !== undefined && isValidViewJson(json, maxBytes);
      assert.equal(
        checked.ok,
        expected,
        `seed ${seed}, tree ${i}: validator says ${checked.ok ? "valid" : (checked as { reason: string }).reason}, checker ${expected}: ${json?.slice(0, 300)}`,
      );
      if (checked.ok) {
        accepted++;
        assertSendable(checked.view, maxBytes, `seed ${seed}, tree ${i}`);
        assert.deepEqual(checked.view, JSON.parse(json), "a valid view is sent unchanged");
        assert.equal(checked.bytes, Buffer.byteLength(json));
      } else {
        refused++;
        assert.match(checked.reason, /^the view/);
      }
    }
    // Both verdicts occur often enough for the agreement to mean something.
    assert.ok(accepted > 500 && refused > 500, `accepted ${accepted}, refused ${refused}`);
  });

  test("random hostile trees: it never throws, and whatever it accepts is plain, valid and within the limit", () => {
    const seed = seedFromEnv("KNIGHTCODE_VIEW_SEED", 1202);
    const random = new Random(seed);
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      const tree = randomView(random, { hostile: true, maxDepth: 11 });
      const checked = checkView(tree, MAX_WIDGET_VIEW_BYTES);
      if (!checked.ok) continue;
      accepted++;
      assertSendable(checked.view, MAX_WIDGET_VIEW_BYTES, `seed ${seed}, tree ${i}`);
    }
    assert.ok(accepted > 200, `accepted ${accepted}`);
  });

  test("8 nested containers are valid and 9 are not; the limits count UTF-8 bytes of the JSON", () => {
    assert.equal(checkView(nested(8), MAX_WIDGET_VIEW_BYTES).ok, true);
    const nine = checkView(nested(9), MAX_WIDGET_VIEW_BYTES);
    assert.equal(nine.ok, false);
    assert.match((nine as { reason: string }).reason, /more than 8 deep/);
    // {"type":"text","text":"..."} is 25 bytes besides the text; "é" is two bytes.
    const fits = { type: "text", text: "é".repeat((MAX_WIDGET_VIEW_BYTES - 26) / 2) + "a" };
    assert.equal(Buffer.byteLength(JSON.stringify(fits)), MAX_WIDGET_VIEW_BYTES);
    assert.equal(checkView(fits, MAX_WIDGET_VIEW_BYTES).ok, true);
    assert.equal(checkView({ ...fits, text: fits.text + "a" }, MAX_WIDGET_VIEW_BYTES).ok, false);
    assert.equal(checkView({ ...fits, text: fits.text + "a" }, MAX_ITEM_VIEW_BYTES).ok, true);
  });

  test("each fault gets a reason, and hostile values neither throw nor run the extension's code", () => {
    const reasons = (value: unknown) => {
      const checked = checkView(value, MAX_WIDGET_VIEW_BYTES);
      assert.equal(checked.ok, false, checked.ok ? JSON.stringify(checked.view) : "");
      return (checked as { reason: string }).reason;
    };
    assert.match(reasons({ type: "iframe", src: "x" }), /unknown type "iframe"/);
    assert.match(reasons({ type: "button", label: "Go" }), /has no id/);
    assert.match(
      reasons({
        type: "stack",
        children: [
          { type: "button", id: "a", label: "1" },
          { type: "button", id: "a", label: "2" },
        ],
      }),
      /repeats the control id "a"/,
    );
    assert.match(reasons({ type: "text", text: 5 }), /must be a string, not a number/);
    assert.match(reasons({ type: "toggle", id: "t", label: "T", value: "yes" }), /must be a boolean/);
    assert.match(reasons({ type: "select", id: "s", options: ["a"], value: "b" }), /not one of its options/);
    assert.match(reasons({ type: "text", text: "a", onclick: "x" }), /unknown field "onclick"/);
    assert.match(reasons({ type: "stack", children: [], direction: "diagonal" }), /vertical/);
    assert.match(reasons({ type: "text", text: BigInt(1) }), /not a bigint/);
    assert.match(reasons(JSON.parse('{"type":"text","text":"a","__proto__":{}}')), /unknown field "__proto__"/);
    assert.match(reasons(Object.assign(Object.create({ type: "text" }), { text: "inherited type" })), /not a plain object/);
    assert.match(reasons({ type: "text", text: "a", [Symbol("s")]: 1 }), /symbol key/);
    assert.match(reasons({ type: "list", children: new Array(1_000_000_000) }), /over the size limit/);
    // biome-ignore lint/suspicious/noSparseArray: a hole, which is not the same as an undefined entry, is the fault under test
    assert.match(reasons({ type: "list", children: [, { type: "text", text: "a" }] }), /missing/);
    const cyclic: { type: string; children: unknown[] } = { type: "list", children: [] };
    cyclic.children.push(cyclic);
    assert.match(reasons(cyclic), /contains itself/);
    let ran = 0;
    const getter = {
      type: "text",
      get text() {
        ran++;
        throw new Error("boom");
      },
    };
    assert.match(reasons(getter), /getter/);
    assert.equal(ran, 0, "a getter is never called");
    const revoked = Proxy.revocable({ type: "text", text: "a" }, {});
    revoked.revoke();
    assert.equal(reasons(revoked.proxy), "the view could not be read");
    // Something thrown that is itself hostile is not looked at.
    const nasty = new Proxy(
      {},
      {
        getPrototypeOf: () => {
          throw new Error("again");
        },
      },
    );
    const trap = new Proxy(
      { type: "text", text: "a" },
      {
        ownKeys: () => {
          throw nasty;
        },
      },
    );
    assert.equal(reasons(trap), "the view could not be read");
    assert.match(reasons(Object.freeze(new Date(0))), /not a plain object/);
    assert.match(reasons("text"), /not an object/);
  });

  test("a valid view is copied: changing the extension's object later changes nothing sent", () => {
    const view = { type: "stack", children: [{ type: "toggle", id: "t", label: "On", value: true }], direction: undefined };
    const checked = checkView(view, MAX_WIDGET_VIEW_BYTES);
    assert.ok(checked.ok);
    assert.deepEqual(checked.view, { type: "stack", children: [{ type: "toggle", id: "t", label: "On", value: true }] });
    (view.children[0] as { value: boolean }).value = false;
    view.children.push({ type: "text", text: "later" } as never);
    assert.deepEqual(checked.view, { type: "stack", children: [{ type: "toggle", id: "t", label: "On", value: true }] });
  });

  test("an item's view: details.view when valid and within 64 KiB, otherwise none", () => {
    const view = { type: "text", text: "done" };
    assert.deepEqual(detailsView({ view }), view);
    assert.equal(detailsView({ view: { type: "text", text: "x".repeat(MAX_ITEM_VIEW_BYTES) } }), undefined);
    assert.equal(detailsView({ view: { type: "marquee" } }), undefined);
    assert.equal(detailsView(undefined), undefined);
    assert.equal(detailsView("view"), undefined);
    assert.equal(
      detailsView({
        get view() {
          throw new Error("no");
        },
      }),
      undefined,
    );
  });
});
