import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Random } from "@knightcode/testkit";
import { DiffReader, parseDiff, type ParseOptions } from "../../src/git/diff/parse.js";
import { diffArgs } from "../../src/git/diff/read.js";
import { DIFF_BUDGET } from "../../src/git/diff/types.js";
import { tempRoot } from "../settings/fixtures.js";
import { testRepo } from "./diff-support.js";

const fresh = tempRoot("diff-reader");

/** A change with every kind of section git writes: edits, adds, deletes, a rename, a type change, binary, a mode change, odd paths, and text that looks like a section's opening. */
function change() {
  const repo = testRepo(fresh());
  const body = (tag: string) => Array.from({ length: 40 }, (_, i) => `${tag} line ${i}\n`).join("");
  repo.write("plain.txt", body("plain"));
  repo.write("to-rename.txt", body("renamed"));
  repo.write("to-delete.txt", body("deleted"));
  repo.write("becomes-link", body("type"));
  repo.write("script.sh", "echo hi\n");
  repo.write("image.bin", Buffer.from([0, 1, 2, 3, 255, 0, 7]));
  repo.write('sp ace\ttab "quote" é.txt', body("odd"));
  repo.write("looks.txt", "diff --git a/x b/x\n@@ -1 +1 @@\nplain\n");
  repo.write("spaces.txt", "a b c\n");
  repo.git("add", "-A");
  repo.git("commit", "-q", "-m", "base");
  repo.write("plain.txt", body("plain").replace("plain line 3\n", "changed\n").replace("plain line 30\n", ""));
  repo.git("mv", "to-rename.txt", "renamed.txt");
  repo.remove("to-delete.txt");
  unlinkSync(join(repo.root, "becomes-link"));
  symlinkSync("plain.txt", join(repo.root, "becomes-link"));
  repo.write("script.sh", "echo hi\n", 0o755);
  repo.write("image.bin", Buffer.from([0, 1, 2, 9, 255, 0, 7, 8]));
  repo.write('sp ace\ttab "quote" é.txt', body("odd").replace("odd line 5\n", "odd line five\n"));
  repo.write("looks.txt", "diff --git a/x b/x\n@@ -1 +1 @@\nplain\ndiff --git a/y b/y\n");
  repo.write("spaces.txt", "a  b   c\n");
  repo.write("added.txt", body("added"));
  repo.git("add", "-A");
  return repo;
}

function gitDiff(root: string, env: NodeJS.ProcessEnv, options: ParseOptions, binary: boolean): Buffer {
  return execFileSync("git", [...diffArgs(options, binary), "--cached", "HEAD", "--"], { cwd: root, env, maxBuffer: 1 << 28 });
}

/** Feeds `out` to a reader in pieces that end where `cut` says. */
function readInPieces(out: Buffer, options: ParseOptions, cut: (at: number) => number) {
  const reader = new DiffReader(options);
  for (let at = 0; at < out.length; ) {
    const end = Math.min(out.length, at + Math.max(1, cut(at)));
    // A copy, as a pipe hands over fresh buffers.
    reader.push(Buffer.from(out.subarray(at, end)));
    at = end;
  }
  return reader.end();
}

test("read in pieces of any size, as git writes it, a diff answers what it answers read whole", () => {
  const repo = change();
  const shapes: ParseOptions[] = [
    { context: 3, ignoreWhitespace: false, budget: DIFF_BUDGET },
    { context: 0, ignoreWhitespace: false, budget: DIFF_BUDGET },
    // Whitespace-blind: git leaves the whitespace-only file's section out.
    { context: 3, ignoreWhitespace: true, budget: DIFF_BUDGET },
    { context: 3, ignoreWhitespace: false, budget: { ...DIFF_BUDGET, maxFiles: 4, maxTotalBytes: 2_000 } },
  ];
  for (const options of shapes) {
    for (const binary of [false, true]) {
      const out = gitDiff(repo.root, repo.env, options, binary);
      const whole = parseDiff(out, options);
      assert.ok(whole.patches.length >= 4, `${whole.patches.length} files`);
      const label = JSON.stringify({ ...options, binary });
      assert.deepEqual(
        readInPieces(out, options, () => 1),
        whole,
        `${label}: one byte at a time`,
      );
      for (let seed = 1; seed <= 20; seed++) {
        const random = new Random(seed);
        assert.deepEqual(
          readInPieces(out, options, () => 1 + random.int(random.chance(0.5) ? 16 : 700)),
          whole,
          `${label}: seed ${seed}`,
        );
      }
    }
  }
  const types = parseDiff(gitDiff(repo.root, repo.env, shapes[0]!, false), shapes[0]!).patches.map((patch) => [patch.file.path, patch.file.status]);
  assert.deepEqual(types.sort(), [
    ["added.txt", "added"],
    ["becomes-link", "modified"],
    ["image.bin", "modified"],
    ["looks.txt", "modified"],
    ["plain.txt", "modified"],
    ["renamed.txt", "renamed"],
    ["script.sh", "modified"],
    ['sp ace\ttab "quote" é.txt', "modified"],
    ["spaces.txt", "modified"],
    ["to-delete.txt", "deleted"],
  ]);
});

test("output that ends inside a raw record is an error at the end, never a throw while reading", () => {
  const reader = new DiffReader({ context: 3, ignoreWhitespace: false, budget: DIFF_BUDGET });
  reader.push(Buffer.from(":100644 100644 abc def M\0pa"));
  assert.throws(() => reader.end(), /ended inside a record/);
  const empty = new DiffReader({ context: 3, ignoreWhitespace: false, budget: DIFF_BUDGET });
  assert.deepEqual(empty.end(), { patches: [], filesOmitted: 0 });
});

test("asked for JSON, each file carries its own text as it was read, and hunk ids hash the file's header and the hunk", () => {
  const repo = change();
  const options: ParseOptions = { context: 3, ignoreWhitespace: false, budget: { ...DIFF_BUDGET, maxFileBytes: 500 } };
  const out = gitDiff(repo.root, repo.env, options, false);
  const plain = parseDiff(out, options);
  const withJson = readInPieces(out, { ...options, json: true }, () => 97);
  assert.equal(withJson.patches.length, plain.patches.length);
  assert.ok(withJson.patches.some((patch) => patch.file.tooLarge) && withJson.patches.some((patch) => patch.file.hunks.length > 0));
  for (const [i, patch] of withJson.patches.entries()) {
    assert.equal(patch.fileJson, JSON.stringify(patch.file));
    assert.deepEqual(patch.file, plain.patches[i]!.file);
  }
  assert.equal(plain.patches[0]!.fileJson, undefined);
  const edited = plain.patches.find((patch) => patch.file.path === "plain.txt")!;
  const [oldBlob, newBlob] = /^index ([0-9a-f]+)\.\.([0-9a-f]+)/m.exec(edited.header.toString("latin1"))!.slice(1);
  const hunk = edited.hunkBytes[0]!;
  const header = `plain.txt\0plain.txt\0${edited.oldMode}\0${edited.newMode}\0${oldBlob}\0${newBlob}\0`;
  const sha1 = createHash("sha1").update(header).update(hunk).digest("hex");
  assert.equal(edited.file.hunks[0]!.id, `c3-${sha1.slice(0, 24)}`);
});
