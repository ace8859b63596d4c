import assert from "node:assert/strict";
import { appendFileSync, readdirSync, rmSync, statSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { MAX_INDEX_BYTES, shardOf } from "../../src/listing/index-file.js";
import { serializeEntry } from "../../src/session/format.js";
import { countingOpen, indexedNames, newListing, readIndexFiles, tempDir, writeTranscript } from "./helpers.js";

const T0 = Date.parse("2025-06-01T10:00:00.000Z");
/** Shards of four transcripts: a folder of thirty needs eight. */
const SMALL = { indexShardRecords: 4 };

function seed(dir: string, count: number, from = 0): Array<{ path: string; id: string }> {
  return Array.from({ length: count }, (_, i) => writeTranscript(dir, { firstUser: `thread ${from + i}`, turns: 1, mtimeMs: T0 - (from + i) * 1000 }));
}

function engine(options: { workerLookNames?: number } = {}) {
  const { openTranscript, state } = countingOpen();
  return { listing: newListing({ ...SMALL, ...options, openTranscript }), opened: state.opened };
}

const indexFiles = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.startsWith(".thread-index"))
    .sort();
const base = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** Each shard file's identity: a rewrite replaces the file (a new inode). */
function identities(dir: string): Map<string, string> {
  return new Map(indexFiles(dir).map((name) => [name, `${statSync(join(dir, name)).ino}:${statSync(join(dir, name)).mtimeMs}`]));
}

describe("thread/list: a big folder's index in shards", () => {
  test("past one shard's worth, every name is in the shard its hash names; a new engine reads them all and opens nothing", async () => {
    const dir = tempDir("shards-layout");
    const made = seed(dir, 30);
    const cold = engine();
    const listed = (await cold.listing.list({ folders: [dir], limit: 200 })).threads;
    assert.equal(listed.length, 30);
    await cold.listing.flush();
    const { shards, files } = readIndexFiles(dir);
    assert.equal(shards, 8);
    assert.deepEqual(indexFiles(dir), [".thread-index.json", ...Array.from({ length: 8 }, (_, at) => `.thread-index-8-${at}.tsv`)].sort());
    for (const [at, shard] of files.entries()) {
      assert.equal(shard.header, `{"version":4,"shard":"8-${at}"}`);
      for (const line of shard.lines) assert.equal(shardOf(line.name, 8), at, `${line.name} is in shard ${at}`);
      const times = shard.lines.map((line) => Number(line.mtimeMs));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => b - a),
        "a shard lists its records newest first",
      );
    }
    assert.deepEqual(indexedNames(dir), made.map((t) => base(t.path)).sort());
    for (const workerLookNames of [undefined, 1]) {
      const warm = engine(workerLookNames === undefined ? {} : { workerLookNames });
      assert.deepEqual((await warm.listing.list({ folders: [dir], limit: 200 })).threads, listed);
      assert.deepEqual(warm.opened, [], "nothing is opened");
    }
  });

  test("a transcript that changes rewrites only its own shard", async () => {
    const dir = tempDir("shards-write");
    const made = seed(dir, 30);
    const { listing } = engine();
    await listing.list({ folders: [dir] });
    await listing.flush();
    const before = identities(dir);
    const target = made[7]!.path;
    appendFileSync(target, serializeEntry({ type: "thread_name", id: "n0000000001", parentId: null, timestamp: T0, name: "renamed" }) + "\n");
    const { threads } = await listing.list({ folders: [dir] });
    assert.equal(threads[0]!.name, "renamed");
    await listing.flush();
    const after = identities(dir);
    const changed = [...after].filter(([name, identity]) => before.get(name) !== identity).map(([name]) => name);
    assert.deepEqual(changed, [`.thread-index-8-${shardOf(base(target), 8)}.tsv`]);
  });

  test("growing and shrinking changes the shard count, and no shard of another count is left behind", async () => {
    const dir = tempDir("shards-resize");
    const made = seed(dir, 3);
    const { listing } = engine();
    await listing.list({ folders: [dir] });
    await listing.flush();
    assert.deepEqual(indexFiles(dir), [".thread-index-1-0.tsv", ".thread-index.json"]);
    made.push(...seed(dir, 17, 3));
    assert.equal((await listing.list({ folders: [dir], limit: 200 })).threads.length, 20);
    await listing.flush();
    assert.equal(readIndexFiles(dir).shards, 8);
    assert.ok(
      indexFiles(dir).every((name) => name === ".thread-index.json" || name.startsWith(".thread-index-8-")),
      indexFiles(dir).join(" "),
    );
    for (const { path } of made.slice(2)) unlinkSync(path);
    assert.equal((await listing.list({ folders: [dir], limit: 200 })).threads.length, 2);
    await listing.flush();
    assert.deepEqual(indexFiles(dir), [".thread-index-1-0.tsv", ".thread-index.json"]);
    assert.deepEqual(
      indexedNames(dir),
      made
        .slice(0, 2)
        .map((t) => base(t.path))
        .sort(),
    );
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.endsWith(".tmp")),
      [],
    );
  });

  test("a damaged, missing or oversized shard costs only its own transcripts a read (a cut one, only its last), and is written again", async () => {
    const dir = tempDir("shards-damage");
    seed(dir, 30);
    const first = engine();
    const listed = (await first.listing.list({ folders: [dir], limit: 200 })).threads;
    await first.listing.flush();
    const { files } = readIndexFiles(dir);
    type Shard = (typeof files)[number];
    const all = (shard: Shard) => shard.lines.map((line) => line.name);
    const damages: Array<[string, (file: string) => void, (shard: Shard) => string[]]> = [
      ["cut in the middle of its last line", (file) => truncateSync(file, statSync(file).size - 7), (shard) => all(shard).slice(-1)],
      ["missing", (file) => rmSync(file), all],
      ["oversized", (file) => writeFileSync(file, `{"version":4,"shard":"x"}\n${" ".repeat(MAX_INDEX_BYTES)}\n`), all],
      ["another shard's header", (file) => writeFileSync(file, `{"version":4,"shard":"8-99"}\n`), all],
    ];
    for (const [at, [what, damage, reread]] of damages.entries()) {
      // The fullest shards: each damage meets one of several transcripts.
      const shard = [...files].sort((a, b) => b.lines.length - a.lines.length)[at]!;
      assert.ok(shard.lines.length > 1, "the shard holds several transcripts");
      damage(shard.file);
      const { listing, opened } = engine();
      assert.deepEqual((await listing.list({ folders: [dir], limit: 200 })).threads, listed, what);
      assert.deepEqual(opened.map(base).sort(), reread(shard).sort(), `${what}: only those transcripts are read`);
      await listing.flush();
      assert.equal(indexedNames(dir).length, 30, `${what}: the shard was written again`);
    }
  });

  test("the worker's look at a folder agrees with one made on the main thread, through adds, appends and deletions", async () => {
    const dir = tempDir("shards-worker");
    const made = seed(dir, 12);
    const worker = engine({ workerLookNames: 1 });
    const here = engine({ workerLookNames: Number.MAX_SAFE_INTEGER });
    for (let round = 0; round < 4; round++) {
      if (round > 0) {
        appendFileSync(
          made[round]!.path,
          serializeEntry({ type: "thread_name", id: `n000000000${round}`, parentId: null, timestamp: T0, name: `round ${round}` }) + "\n",
        );
        unlinkSync(made[made.length - 1]!.path);
        made.pop();
        made.push(writeTranscript(dir, { firstUser: `added ${round}`, mtimeMs: T0 + round * 1000 }));
      }
      const a = (await worker.listing.list({ folders: [dir], limit: 200 })).threads;
      const b = (await here.listing.list({ folders: [dir], limit: 200 })).threads;
      assert.deepEqual(a, b, `round ${round}`);
      assert.equal(a.length, 12);
    }
    const gone = join(dir, "no-such-folder");
    assert.deepEqual((await worker.listing.list({ folders: [gone] })).threads, []);
    const file = join(dir, "a-file");
    writeFileSync(file, "");
    assert.deepEqual((await worker.listing.list({ folders: [file] })).threads, []);
  });

  test("an aborted worker look rejects with the abort's reason, and the next listing still answers", async () => {
    const dir = tempDir("shards-abort");
    seed(dir, 10);
    const { listing } = engine({ workerLookNames: 1 });
    await listing.list({ folders: [dir] });
    const controller = new AbortController();
    const pending = listing.list({ folders: [dir], signal: controller.signal });
    controller.abort(new Error("client went away"));
    await assert.rejects(pending, /client went away/);
    assert.equal((await listing.list({ folders: [dir] })).threads.length, 10);
  });
});
