import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { discoverRepo } from "../../src/git/repo.js";
import { readDiff } from "../../src/git/diff/read.js";
import { DIFF_BUDGET } from "../../src/git/diff/types.js";
import type { GitContext } from "../../src/git/ops/context.js";
import { tempRoot } from "../settings/fixtures.js";
import { testRepo, type TestRepo } from "./diff-support.js";

const fresh = tempRoot("diff-early");

/**
 * The system git behind a script that writes each command's first two
 * words to a log before running it: which commands a read started, and in
 * what order they were asked for.
 */
const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
const wrapperDir = mkdtempSync(join(tmpdir(), "kc-git-log-"));
const log = join(wrapperDir, "log");
writeFileSync(
  join(wrapperDir, "git"),
  `#!/bin/sh\nfor a in "$@"; do case "$a" in -c|core.*|diff.*|color.*) ;; *) printf '%s\\n' "$a" >> '${log}'; break;; esac; done\nexec '${realGit}' "$@"\n`,
);
chmodSync(join(wrapperDir, "git"), 0o755);
after(() => rmSync(wrapperDir, { recursive: true, force: true }));

/** The git commands a read runs, by their subcommand. */
async function commandsOf(run: () => Promise<unknown>): Promise<string[]> {
  writeFileSync(log, "");
  await run();
  return readFileSync(log, "utf8").split("\n").filter(Boolean);
}

async function logged(repo: TestRepo): Promise<GitContext> {
  const env = { ...repo.env, PATH: `${wrapperDir}:${process.env.PATH ?? ""}` };
  return { repo: await discoverRepo(repo.root, env), env };
}

/** A repository whose one committed file, a.txt, is modified. */
function changedRepo(): TestRepo {
  const repo = testRepo(fresh());
  repo.write("a.txt", "one\n");
  repo.git("add", "-A");
  repo.git("commit", "-q", "-m", "base");
  repo.write("a.txt", "two\n");
  return repo;
}

describe("an uncommitted read starts its diff while untracked files are listed", () => {
  test("with nothing untracked, the diff is the one git names HEAD for, and no other command waits before it", async () => {
    const repo = changedRepo();
    const ctx = await logged(repo);
    let answer: Awaited<ReturnType<typeof readDiff>>["answer"] | undefined;
    const commands = await commandsOf(async () => (answer = (await readDiff(ctx, {})).answer));
    assert.deepEqual(
      answer!.files.map((f) => [f.path, f.status, f.additions, f.deletions]),
      [["a.txt", "modified", 1, 1]],
    );
    assert.deepEqual(commands.sort(), ["diff", "ls-files"]);
  });

  test("untracked files stop that diff: they are marked and the read shows them as added, as before", async () => {
    const repo = changedRepo();
    repo.write("new.txt", "fresh\n");
    const ctx = await logged(repo);
    let answer: Awaited<ReturnType<typeof readDiff>>["answer"] | undefined;
    const commands = await commandsOf(async () => (answer = (await readDiff(ctx, {})).answer));
    assert.deepEqual(
      answer!.files.map((f) => [f.path, f.status]),
      [
        ["a.txt", "modified"],
        ["new.txt", "added"],
      ],
    );
    assert.ok(commands.includes("add"), `marked intent-to-add: ${commands.join(" ")}`);
    assert.equal(commands.filter((c) => c === "diff").length, 2);
    // A rename from a tracked file to an untracked one is still one rename: the marked read sees both sides.
    repo.remove("a.txt");
    repo.write("moved.txt", "one\n");
    const moved = (await readDiff(ctx, {})).answer.files.filter((f) => f.path === "moved.txt");
    assert.deepEqual(
      moved.map((f) => [f.status, f.oldPath]),
      [["renamed", "a.txt"]],
    );
  });

  test("a diff stopped while it held its index's lock is no obstacle: the marked read has an index copy of its own", async () => {
    const repo = changedRepo();
    repo.write("new.txt", "fresh\n");
    // The first diff takes its index's lock and hangs there, as git does while it refreshes the index, until it is stopped.
    const marker = join(wrapperDir, "held");
    const holder = join(wrapperDir, "holding-git");
    writeFileSync(
      holder,
      `#!/bin/sh\nfor a in "$@"; do case "$a" in -c|core.*|diff.*|color.*) ;; diff) if [ ! -e '${marker}' ]; then : > '${marker}'; : > "$GIT_INDEX_FILE.lock"; exec sleep 60; fi; break;; *) break;; esac; done\nexec '${realGit}' "$@"\n`,
    );
    chmodSync(holder, 0o755);
    const binDir = mkdtempSync(join(tmpdir(), "kc-git-hold-"));
    symlinkSync(holder, join(binDir, "git"));
    try {
      const env = { ...repo.env, PATH: `${binDir}:${process.env.PATH ?? ""}` };
      const ctx = { repo: await discoverRepo(repo.root, env), env };
      const { answer } = await readDiff(ctx, {});
      assert.ok(existsSync(marker), "the first diff took the lock");
      assert.deepEqual(
        answer.files.map((f) => [f.path, f.status]),
        [
          ["a.txt", "modified"],
          ["new.txt", "added"],
        ],
      );
    } finally {
      rmSync(binDir, { recursive: true, force: true });
    }
  });

  test("more untracked files than the budget marks: the early diff stands and they are counted", async () => {
    const repo = changedRepo();
    for (let i = 0; i < 4; i++) repo.write(`flood/${i}.txt`, "x\n");
    const ctx = await logged(repo);
    let answer: Awaited<ReturnType<typeof readDiff>>["answer"] | undefined;
    const commands = await commandsOf(async () => (answer = (await readDiff(ctx, {}, { budget: { ...DIFF_BUDGET, maxUntracked: 3 } })).answer));
    assert.equal(answer!.untrackedSkipped, 4);
    assert.deepEqual(
      answer!.files.map((f) => f.path),
      ["a.txt"],
    );
    assert.deepEqual(commands.sort(), ["diff", "ls-files"]);
  });

  test("a branch with no commit yet: the early diff fails on HEAD, and the read compares with the empty tree", async () => {
    const repo = testRepo(fresh());
    repo.write("staged.txt", "s\n");
    repo.git("add", "staged.txt");
    const ctx = await logged(repo);
    const { answer } = await readDiff(ctx, {});
    assert.deepEqual(
      answer.files.map((f) => [f.path, f.status]),
      [["staged.txt", "added"]],
    );
    const unstaged = await readDiff(ctx, { scope: "unstaged" });
    assert.deepEqual(unstaged.answer.files, []);
  });

  test("a cancelled read is cancelled, not read again the old way", async () => {
    const repo = changedRepo();
    const controller = new AbortController();
    controller.abort();
    const ctx = { ...(await logged(repo)), signal: controller.signal };
    await assert.rejects(readDiff(ctx, {}), /cancelled/);
  });
});
