import assert from "node:assert/strict";
import { test } from "node:test";
import { BashOracle, checkWithBash } from "./bash-oracle.js";
import { CORPUS } from "./shell-corpus.js";

test("bash runs every recognized corpus command as exactly the words we analyzed", (t) => {
  const oracle = new BashOracle();
  t.after(() => oracle.dispose());
  const accepted = CORPUS.filter(([, expected]) => expected !== null);
  assert.ok(accepted.length > 150);
  const wrong = accepted.map(([command]) => checkWithBash(oracle, command)).filter((problem) => problem !== undefined);
  assert.deepEqual(wrong, []);
});

test("the oracle itself sees chaining, substitution and expansion", (t) => {
  const oracle = new BashOracle();
  t.after(() => oracle.dispose());
  assert.equal(oracle.run("git status; git reset").calls.length, 2);
  assert.deepEqual(oracle.run("git $(printf status)").calls, [["git", "status"]]);
  assert.deepEqual(oracle.run("git log HEAD~3 a=~").calls[0]?.slice(0, 3), ["git", "log", "HEAD~3"]);
  assert.notEqual(oracle.run("git log a=~").calls[0]?.[2], "a=~");
});
