import assert from "node:assert/strict";
import { appendFileSync, chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { INDEX_FILE, MAX_INDEX_BYTES, loadIndex } from "../../src/listing/index-file.js";
import { factsOf, isRow } from "../../src/listing/record.js";
import type { ThreadListing } from "../../src/listing/thread-listing.js";
import { serializeEntry } from "../../src/session/format.js";
import { mulberry32 } from "../session/helpers.js";
import { countingOpen, newListing, readIndexFiles, setMtime, tempDir, transcriptLines, writeShard, writeTranscript } from "./helpers.js";

const T0 = Date.parse("2025-03-01T10:00:00.000Z");

function seed(dir: string, count: number): Array<{ path: string; id: string }> {
  return Array.from({ length: count }, (_, i) => writeTranscript(dir, { firstUser: `thread ${i}`, turns: 2, mtimeMs: T0 - i * 1000 }));
}

/** A listing engine with its open calls recorded. */
function engine() {
  const { openTranscript, state } = countingOpen();
  return { listing: newListing({ openTranscript }), opened: state.opened };
}

async function listIds(listing: ThreadListing, dir: string): Promise<string[]> {
  return (await listing.list({ folders: [dir], limit: 200 })).threads.map((t) => t.id);
}

async function indexRecords(dir: string): Promise<Record<string, { id?: string; title?: string }>> {
  const { files } = loadIndex(dir + "/");
  return Object.fromEntries(
    [...files].map(([name, file]) => {
      const facts = isRow(file) ? factsOf(file) : undefined;
      return [name, { id: facts?.header.id, title: facts?.title }];
    }),
  );
}

function threadName(name: string): string {
  return serializeEntry({ type: "thread_name", id: `n${Math.random().toString(16).slice(2, 13)}`, parentId: null, timestamp: T0, name });
}

describe("thread/list: the .thread-index.json cache", () => {
  test("a warm listing opens no transcript, in the same engine or a new one reading the index", async () => {
    const dir = tempDir("index-warm");
    const made = seed(dir, 20);
    const fork = writeTranscript(dir, { firstUser: "forked", forkedFromId: made[0]!.id, mtimeMs: T0 + 5000 });
    const cold = engine();
    const ids = await listIds(cold.listing, dir);
    assert.equal(cold.opened.length, 21);
    assert.equal(cold.listing.counters.listingFilesOpened, 21);
    const total = [...made, fork].reduce((sum, t) => sum + statSync(t.path).size, 0);
    assert.equal(cold.listing.counters.listingBytesScanned, total, "a cold scan reads each transcript once");
    assert.deepEqual(await listIds(cold.listing, dir), ids);
    assert.equal(cold.opened.length, 21);
    await cold.listing.flush();
    const warm = engine();
    const page = await warm.listing.list({ folders: [dir], limit: 200 });
    assert.deepEqual(
      page.threads.map((t) => t.id),
      ids,
    );
    assert.equal(page.threads[0]!.forkedFromId, made[0]!.id, "the fork origin comes from the index");
    assert.deepEqual(warm.opened, []);
    assert.deepEqual(warm.listing.counters, { listingFilesOpened: 0, listingBytesScanned: 0 });
    if (process.getuid?.() !== 0) {
      // Root reads through any mode; for anyone else, unreadable transcripts prove nothing opens them.
      for (const { path } of [...made, fork]) chmodSync(path, 0o000);
      try {
        assert.deepEqual(await listIds(newListing(), dir), ids);
      } finally {
        for (const { path } of [...made, fork]) chmodSync(path, 0o600);
      }
    }
  });

  test("an appended transcript is the only one read again, and only its new bytes (plus a small anchor)", async () => {
    const dir = tempDir("index-append");
    const made = seed(dir, 10);
    const { listing, opened } = engine();
    await listIds(listing, dir);
    opened.length = 0;
    const before = listing.counters.listingBytesScanned;
    const target = made[5]!.path;
    const sizeBefore = statSync(target).size;
    const added = `${threadName("renamed later")}\n`;
    appendFileSync(target, added);
    const { threads } = await listing.list({ folders: [dir] });
    assert.deepEqual(opened, [target]);
    assert.equal(threads[0]!.path, target, "its new mtime makes it the newest");
    assert.equal(threads[0]!.name, "renamed later");
    assert.equal(threads[0]!.title, "renamed later");
    const read = listing.counters.listingBytesScanned - before;
    assert.ok(read <= added.length + 256 && read < sizeBefore, `read ${read} bytes of ${sizeBefore + added.length}`);
  });

  test("a transcript rewritten in place or replaced is read whole again", async () => {
    const dir = tempDir("index-rewrite");
    const made = seed(dir, 3);
    const { listing, opened } = engine();
    await listIds(listing, dir);
    // Same inode, bigger, different history: the anchor no longer matches.
    const other = transcriptLines({ id: "00000000-0000-4000-8000-000000000001", firstUser: "replaced content", turns: 4 });
    writeFileSync(made[1]!.path, other.join("\n") + "\n");
    // A new inode (an atomic replace), same size and mtime as before would not hide it either.
    const replacement = join(dir, "replacement.tmp");
    writeFileSync(replacement, transcriptLines({ id: "00000000-0000-4000-8000-000000000002", firstUser: "brand new" }).join("\n") + "\n");
    renameSync(replacement, made[2]!.path);
    opened.length = 0;
    const before = listing.counters.listingBytesScanned;
    const { threads } = await listing.list({ folders: [dir] });
    assert.deepEqual(opened.sort(), [made[1]!.path, made[2]!.path].sort());
    const byPath = new Map(threads.map((t) => [t.path, t]));
    assert.deepEqual([byPath.get(made[1]!.path)!.id, byPath.get(made[1]!.path)!.title], ["00000000-0000-4000-8000-000000000001", "replaced content"]);
    assert.deepEqual([byPath.get(made[2]!.path)!.id, byPath.get(made[2]!.path)!.title], ["00000000-0000-4000-8000-000000000002", "brand new"]);
    const whole = statSync(made[1]!.path).size + statSync(made[2]!.path).size;
    assert.ok(listing.counters.listingBytesScanned - before >= whole);
  });

  test("deleted transcripts disappear from the listing and from the index", async () => {
    const dir = tempDir("index-delete");
    const made = seed(dir, 4);
    const { listing, opened } = engine();
    await listIds(listing, dir);
    await listing.flush();
    unlinkSync(made[1]!.path);
    opened.length = 0;
    assert.deepEqual(await listIds(listing, dir), [made[0]!.id, made[2]!.id, made[3]!.id]);
    assert.deepEqual(opened, []);
    await listing.flush();
    assert.deepEqual(
      Object.values(await indexRecords(dir))
        .map((r) => r.id)
        .sort(),
      [made[0]!.id, made[2]!.id, made[3]!.id].sort(),
    );
  });

  test("records are lines of name, stat and facts, which leave out what the file name says; the same summaries come back", async () => {
    const dir = tempDir("index-compact");
    writeTranscript(dir, { firstUser: "in a", cwd: "/work/a", mtimeMs: T0 });
    writeTranscript(dir, { firstUser: "forked in a", cwd: "/work/a", forkedFromId: "0b8f6c8e-1f5e-4b7e-9a53-5b2a6f0c9d11", mtimeMs: T0 - 1000 });
    const other = writeTranscript(dir, { firstUser: "in b, renamed by hand", cwd: "/work/b", mtimeMs: T0 - 2000 });
    renameSync(other.path, join(dir, "notes.jsonl"));
    const cold = newListing();
    const listed = (await cold.list({ folders: [dir] })).threads;
    await cold.flush();
    const { shards, files } = readIndexFiles(dir);
    assert.equal(shards, 1);
    const lines = files[0]!.lines;
    assert.equal(lines.length, 3);
    const facts = lines.map((line) => JSON.parse(line.facts) as unknown[]);
    assert.deepEqual(facts.map((record) => record[0]).sort(), ["/work/a", "/work/a", "/work/b"]);
    const renamed = facts[lines.findIndex((line) => line.name === "notes.jsonl")]!;
    assert.equal(renamed[1], other.id, "a file renamed by hand keeps its id in the record");
    for (const [at, line] of lines.entries())
      if (line.name !== "notes.jsonl") assert.deepEqual(facts[at]!.slice(1, 4), [null, null, null], "id, time and scan end come from the name and size");
    const warm = engine();
    assert.deepEqual((await warm.listing.list({ folders: [dir] })).threads, listed);
    assert.deepEqual(warm.opened, []);
  });

  test("missing, corrupt, invalid and oversized indexes rebuild, and are replaced", async () => {
    const dir = tempDir("index-rebuild");
    const made = seed(dir, 5);
    const first = newListing();
    const ids = await listIds(first, dir);
    await first.flush();
    const good = readFileSync(join(dir, INDEX_FILE), "utf8");
    const oversized = `{"version":4,"shards":1,"pad":"${" ".repeat(MAX_INDEX_BYTES)}"}`;
    const damages: Array<[string, string | undefined]> = [
      ["missing", undefined],
      ["empty", ""],
      ["not JSON", "{ this is not json"],
      ["truncated", good.slice(0, good.length / 2)],
      ["wrong version", good.replace('"version":4', '"version":99')],
      ["the version-1 layout", '{"version":1,"files":{}}'],
      ["the version-3 layout", '{"version":3,"cwds":[],"files":{}}'],
      ["not an object", "[1,2,3]"],
      ["a shard count that is not a count", '{"version":4,"shards":"1"}'],
      ["a shard count out of range", '{"version":4,"shards":100000}'],
      ["shards that are missing", '{"version":4,"shards":4}'],
      ["oversized", oversized],
    ];
    for (const [what, text] of damages) {
      if (text === undefined) rmSync(join(dir, INDEX_FILE), { force: true });
      else writeFileSync(join(dir, INDEX_FILE), text);
      const { listing, opened } = engine();
      assert.deepEqual(await listIds(listing, dir), ids, what);
      assert.equal(opened.length, made.length, what);
      await listing.flush();
      assert.equal(Object.keys(await indexRecords(dir)).length, made.length, `${what}: the index was rewritten`);
    }
  });

  test("a bad record is dropped alone: only its transcript is read again", async () => {
    const dir = tempDir("index-record");
    const made = seed(dir, 4);
    const first = newListing();
    await listIds(first, dir);
    await first.flush();
    const shard = readIndexFiles(dir).files[0]!;
    const lines = shard.lines;
    const names = lines.map((line) => line.name);
    const facts = (at: number) => JSON.parse(lines[at]!.facts) as unknown[];
    const longTitle = facts(0);
    longTitle[5] = "y".repeat(10_000);
    lines[0]!.facts = JSON.stringify(longTitle);
    lines[1]!.size = "-1";
    const wrongScan = facts(2);
    wrongScan[3] = 10 ** 9;
    lines[2]!.facts = JSON.stringify(wrongScan);
    lines.push({ name: "../escape.jsonl", size: "1", mtimeMs: "1", ino: "1", facts: "" });
    writeShard(shard.file, shard.header, lines);
    const { listing, opened } = engine();
    const { threads } = await listing.list({ folders: [dir] });
    assert.deepEqual(opened.map((p) => p.slice(dir.length + 1)).sort(), [names[0], names[1], names[2]].sort());
    assert.ok(threads.every((t) => t.title.length < 200));
    assert.equal(threads.length, made.length);
  });

  test("a failing index write loses only the cache", async () => {
    const dir = tempDir("index-unwritable");
    const made = seed(dir, 3);
    // A folder where the index file should be: the rename fails, even for root.
    mkdirSync(join(dir, INDEX_FILE));
    const { listing, opened } = engine();
    assert.equal((await listIds(listing, dir)).length, 3);
    await listing.flush();
    assert.equal((await listIds(listing, dir)).length, 3);
    await listing.flush();
    assert.equal(opened.length, 3, "the engine's memory still serves warm listings");
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.endsWith(".tmp")),
      [],
      "no temporary file is left behind",
    );
    if (process.getuid?.() !== 0) {
      const readOnly = tempDir("index-readonly");
      seed(readOnly, 2);
      chmodSync(readOnly, 0o555);
      try {
        const other = newListing();
        assert.equal((await listIds(other, readOnly)).length, 2);
        await other.flush();
      } finally {
        chmodSync(readOnly, 0o755);
      }
    }
    assert.equal(made.length, 3);
  });

  test("random changes: a warm engine always agrees with a cold one, and reads only what changed", async () => {
    const dir = tempDir("index-random");
    const random = mulberry32(7);
    const live = seed(dir, 30).map((t) => t.path);
    const { listing, opened } = engine();
    await listing.list({ folders: [dir] });
    for (let round = 0; round < 60; round++) {
      const touched = new Set<string>();
      for (let change = 0; change < 1 + Math.floor(random() * 4); change++) {
        const r = random();
        const at = Math.floor(random() * live.length);
        const path = live[at]!;
        if (r < 0.3) {
          appendFileSync(path, `${threadName(`r${round}.${change}`)}\n`);
          touched.add(path);
        } else if (r < 0.5) {
          setMtime(path, T0 + round * 10_000 + change);
          touched.add(path);
        } else if (r < 0.65 && live.length > 5) {
          unlinkSync(path);
          live.splice(at, 1);
          touched.delete(path);
        } else {
          const made = writeTranscript(dir, { firstUser: `new ${round}.${change}`, mtimeMs: T0 + round * 10_000 + 5 });
          live.push(made.path);
          touched.add(made.path);
        }
      }
      opened.length = 0;
      const warm = (await listing.list({ folders: [dir], limit: 200 })).threads;
      const cold = (await newListing().list({ folders: [dir], limit: 200 })).threads;
      assert.deepEqual(warm, cold, `round ${round}`);
      assert.deepEqual(opened.sort(), [...touched].sort(), `round ${round}`);
    }
  });

  test("an aborted cold listing keeps what it read: the next one reads only the rest", async () => {
    const dir = tempDir("index-abort");
    seed(dir, 200);
    const controller = new AbortController();
    const { openTranscript, state } = countingOpen();
    const listing = newListing({
      openTranscript: async (path) => {
        if (state.opened.length === 50) controller.abort(new Error("client went away"));
        return openTranscript(path);
      },
    });
    await assert.rejects(listing.list({ folders: [dir], signal: controller.signal }), /client went away/);
    const firstRound = state.opened.length;
    assert.ok(firstRound >= 50 && firstRound < 200, `${firstRound} opened before the abort took effect`);
    const { threads } = await listing.list({ folders: [dir], limit: 200 });
    assert.equal(threads.length, 200);
    assert.equal(state.opened.length, 200, "the second listing read only what the first did not");
    assert.equal(new Set(state.opened).size, 200);
  });

  test("at most 64 transcripts are open at once, across concurrent listings of several folders", async () => {
    const one = tempDir("index-open-one");
    const two = tempDir("index-open-two");
    seed(one, 150);
    seed(two, 150);
    const { openTranscript, state } = countingOpen({ delayMs: 2 });
    const listing = newListing({ openTranscript });
    const [a, b] = await Promise.all([listing.list({ folders: [one, two] }), listing.list({ folders: [two, one] })]);
    assert.equal(a.threads.length, 50);
    assert.equal(b.threads.length, 50);
    assert.ok(state.peak <= 64, `peak ${state.peak}`);
    assert.ok(state.peak >= 32, `scans overlap (peak ${state.peak})`);
    assert.equal(state.current, 0, "every handle was closed");
    assert.equal(state.opened.length, 300, "a folder refreshed by two listings at once is read once");
  });
});

describe("thread/list: file events between full looks", () => {
  test("a warm listing sees adds, appends, renames and deletions at once, and a replaced folder falls back to a full look", async () => {
    const dir = tempDir("index-events");
    const made = seed(dir, 6);
    const { listing, opened } = engine();
    await listIds(listing, dir);
    opened.length = 0;
    // Changes made right before a listing are all in it: the watch reads queued events first.
    unlinkSync(made[0]!.path);
    appendFileSync(
      made[1]!.path,
      serializeEntry({ type: "thread_name", id: "evt000000001", parentId: null, timestamp: T0 + 9e6, name: "Renamed" } as never) + "\n",
    );
    setMtime(made[1]!.path, T0 + 9e6);
    const added = seed(dir, 1)[0]!;
    const moved = join(dir, "2025-03-02T00-00-00-000Z_" + made[2]!.id + ".jsonl");
    renameSync(made[2]!.path, moved);
    const { threads } = await listing.list({ folders: [dir], limit: 200 });
    const ids = threads.map((t) => t.id).sort();
    assert.deepEqual(ids, [added.id, ...made.slice(1).map((m) => m.id)].sort());
    assert.equal(threads.find((t) => t.id === made[1]!.id)?.name, "Renamed");
    assert.deepEqual(opened.sort(), [made[1]!.path, added.path, moved].sort(), "only the changed files were read");

    // The index is written after the answer: replacing the folder under a write still going on is another test.
    await listing.flush();
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const fresh = seed(dir, 2);
    const after = await listing.list({ folders: [dir], limit: 200 });
    assert.deepEqual(after.threads.map((t) => t.id).sort(), fresh.map((m) => m.id).sort(), "a new folder of the same name is looked at in full");
  });
});
