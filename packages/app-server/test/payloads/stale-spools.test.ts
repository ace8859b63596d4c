import assert from "node:assert/strict";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { sweepStaleSpools } from "../../src/payloads/stale-spools.js";
import { deadPid, fakeSpool } from "../support/spools.js";

test("only our own real spool folders of dead pids are removed", async (t) => {
  const root = mkdtempSync(join(tmpdir(), "kc-stale-spools-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dead = await deadPid();
  const stale = [fakeSpool(root, dead), fakeSpool(root, dead)];
  const live = fakeSpool(root, process.pid);
  const parentLive = fakeSpool(root, process.ppid);
  const target = mkdtempSync(join(root, "target-"));
  writeFileSync(join(target, "keep"), "keep");
  symlinkSync(target, join(root, `knightcode-spool-${dead}-Link00`));
  writeFileSync(join(root, `knightcode-spool-${dead}-File00`), "a file, not a folder");
  mkdirSync(join(root, `knightcode-spool-${dead}-short`));
  mkdirSync(join(root, `knightcode-spool-x${dead}-Other0`));
  const others = process.getuid?.() === 0 ? fakeSpool(root, dead) : undefined;
  if (others) chownSync(others, 54_321, 54_321);

  const removed = await sweepStaleSpools({ root });

  assert.deepEqual(removed.sort(), stale.sort());
  for (const folder of stale) assert.equal(existsSync(folder), false);
  const left = readdirSync(root).sort();
  const expected = [live, parentLive, target, ...(others ? [others] : [])].map((path) => path.slice(root.length + 1));
  expected.push(`knightcode-spool-${dead}-Link00`, `knightcode-spool-${dead}-File00`, `knightcode-spool-${dead}-short`, `knightcode-spool-x${dead}-Other0`);
  assert.deepEqual(left, expected.sort());
  assert.equal(existsSync(join(target, "keep")), true, "a link's target is never followed");
});

test("a folder whose pid some process has stays, whoever runs that process", async (t) => {
  const root = mkdtempSync(join(tmpdir(), "kc-stale-spools-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const folder = fakeSpool(root, 4242);
  const asked: number[] = [];
  assert.deepEqual(await sweepStaleSpools({ root, processExists: (pid) => (asked.push(pid), true) }), []);
  assert.deepEqual(asked, [4242]);
  assert.equal(existsSync(folder), true);
});

test("a dead server's sandbox temporary folders go too, even with what a command made unwritable in them", async (t) => {
  const root = mkdtempSync(join(tmpdir(), "kc-stale-spools-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dead = await deadPid();
  const stale = mkdtempSync(join(root, `knightcode-sandbox-${dead}-`));
  mkdirSync(join(stale, "locked", "deep"), { recursive: true });
  writeFileSync(join(stale, "locked", "deep", "file"), "x");
  chmodSync(join(stale, "locked"), 0o500);
  const live = mkdtempSync(join(root, `knightcode-sandbox-${process.pid}-`));
  assert.deepEqual(await sweepStaleSpools({ root }), [stale]);
  assert.equal(existsSync(stale), false);
  assert.equal(existsSync(live), true);
});
