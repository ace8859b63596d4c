import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Random } from "@knightcode/testkit";
import { readDiff } from "../../src/git/diff/read.js";
import { revertDiff } from "../../src/git/diff/revert.js";
import { tempRoot } from "../settings/fixtures.js";
import { testRepo, type TestRepo } from "./diff-support.js";

const fresh = tempRoot("diff-property");

// Few distinct lines, so hunks share context and git's alignment has choices to make.
const WORDS = ["alpha", "beta", "gamma", "{", "}", "", "return x;", "  nested", "delta epsilon"];

function randomLines(random: Random, count: number): string[] {
  return Array.from({ length: count }, () => random.pick(WORDS));
}

/** A text file's content: LF or CRLF line ends, sometimes without a last newline. */
function render(lines: string[], crlf: boolean, finalNewline: boolean): string {
  const eol = crlf ? "\r\n" : "\n";
  return lines.join(eol) + (finalNewline && lines.length > 0 ? eol : "");
}

function edit(random: Random, lines: string[]): string[] {
  const out = [...lines];
  const edits = 1 + random.int(4);
  for (let i = 0; i < edits; i++) {
    const at = random.int(out.length + 1);
    switch (random.int(3)) {
      case 0:
        out.splice(at, 0, ...randomLines(random, 1 + random.int(3)));
        break;
      case 1:
        out.splice(at, 1 + random.int(3));
        break;
      default:
        if (at < out.length) out[at] = `${random.pick(WORDS)} changed ${random.int(100)}`;
    }
  }
  return out;
}

/** A committed repository of a few files, then a random sequence of edits, deletions and new files. */
function scenario(seed: number): TestRepo {
  const random = new Random(seed);
  const repo = testRepo(fresh());
  const files = new Map<string, { lines: string[]; crlf: boolean }>();
  const count = 2 + random.int(5);
  for (let i = 0; i < count; i++) {
    const file = { lines: randomLines(random, random.int(30)), crlf: random.chance(0.3) };
    const path = `${random.pick(["", "src/", "src/deep/"])}file${i}.txt`;
    files.set(path, file);
    repo.write(path, render(file.lines, file.crlf, random.chance(0.85)));
  }
  repo.git("add", "-A");
  repo.git("commit", "-q", "-m", "base");
  for (const [path, file] of files) {
    const roll = random.next();
    if (roll < 0.15) repo.remove(path);
    else if (roll < 0.85) repo.write(path, render(edit(random, file.lines), file.crlf, random.chance(0.85)));
  }
  const added = random.int(3);
  for (let i = 0; i < added; i++) repo.write(`new/added${i}.txt`, render(randomLines(random, random.int(8)), random.chance(0.3), true));
  return repo;
}

describe("reverting the uncommitted scope hunk by hunk", () => {
  test("restores the committed working tree byte for byte, for 30 random edit sequences", async () => {
    // KC_DIFF_SEED=<n> replays one case.
    const seeds = process.env.KC_DIFF_SEED ? [Number(process.env.KC_DIFF_SEED)] : Array.from({ length: 30 }, (_, i) => i + 1);
    for (const seed of seeds) {
      const repo = scenario(seed * 7919);
      const ctx = await repo.ctx();
      // The committed files, byte for byte (none of them is executable).
      const expected = new Map<string, string>();
      for (const path of repo.git("ls-tree", "-r", "--name-only", "-z", "HEAD").split("\0").filter(Boolean)) {
        expected.set(path, `-:${Buffer.from(repo.git("show", `HEAD:${path}`), "utf8").toString("base64")}`);
      }
      const random = new Random(seed);
      for (let step = 0; step < 500; step++) {
        const { answer } = await readDiff(ctx, {});
        if (process.env.KC_DIFF_SEED) console.error(JSON.stringify(answer.files.map((f) => [f.path, f.oldPath, f.status, f.hunks.length])));
        if (answer.files.length === 0) break;
        const hunks = answer.files.flatMap((file) => file.hunks.map((hunk) => ({ file, hunk })));
        if (hunks.length > 0) {
          const { file, hunk } = random.pick(hunks);
          await revertDiff(ctx, { path: file.path, hunkId: hunk.id });
        } else {
          await revertDiff(ctx, { path: random.pick(answer.files).path });
        }
        assert.ok(step < 499, `seed ${seed}: the diff never emptied`);
      }
      const actual = repo.tree();
      assert.deepEqual(new Map([...actual].filter(([path]) => !path.startsWith("new/"))), expected, `seed ${seed}`);
      assert.deepEqual(
        [...actual.keys()].filter((path) => path.startsWith("new/")),
        [],
        `seed ${seed}: added files are deleted`,
      );
    }
  });
});
