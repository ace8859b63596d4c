import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { waitUntil } from "@knightcode/testkit";
import { createBashTool, type BashDetails } from "../../src/tools/bash.js";
import { SpillFiles } from "../../src/tools/spill-files.js";
import { tempDir } from "./support.js";

/** A command whose output is too large to return inline, so it is spilled to a file. */
const LARGE = "head -c 200000 /dev/zero | tr '\\0' 'z' | fold -w 100";

test("a thread keeps its newest spill files, deletes the ones they supersede, and all of them when it goes", async (t) => {
  const dir = await tempDir(t);
  const spills = new SpillFiles({ keep: 2 });
  const bash = createBashTool({ cwd: dir, spills }, { spillDir: dir });
  const paths: string[] = [];
  for (let i = 0; i < 4; i++) {
    const result = await bash.execute("c", { command: LARGE });
    const path = (result.details as BashDetails).fullOutputPath;
    assert.ok(path !== undefined && existsSync(path), "the whole output is in a file");
    paths.push(path);
  }
  assert.deepEqual(spills.paths, paths.slice(2));
  // Deleting what is superseded does not hold up the call that superseded it.
  await waitUntil("the superseded files to go", () => !existsSync(paths[0]!) && !existsSync(paths[1]!));
  assert.deepEqual(
    paths.map((path) => existsSync(path)),
    [false, false, true, true],
    "the two newest are kept",
  );
  await spills.dispose();
  assert.deepEqual(
    paths.map((path) => existsSync(path)),
    [false, false, false, false],
  );
  // A command that outlived its thread hands over its file after the end: it goes at once.
  const late = (await bash.execute("c", { command: LARGE })).details as BashDetails;
  await spills.dispose();
  assert.equal(existsSync(late.fullOutputPath!), false);
});

test("a failed command's spill file is owned too", async (t) => {
  const dir = await tempDir(t);
  const spills = new SpillFiles();
  const bash = createBashTool({ cwd: dir, spills }, { spillDir: dir });
  await assert.rejects(bash.execute("c", { command: `${LARGE}; exit 3` }));
  assert.equal(spills.paths.length, 1);
  await spills.dispose();
  assert.equal(existsSync(spills.paths[0] ?? ""), false);
});
