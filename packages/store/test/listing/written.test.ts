import assert from "node:assert/strict";
import { appendFileSync, rmSync } from "node:fs";
import { describe, test } from "node:test";
import { serializeEntry } from "../../src/session/format.js";
import { SessionFile } from "../../src/session/session-file.js";
import { assistantText, userText } from "../session/helpers.js";
import { countingOpen, indexedNames, newListing, tempDir, writeTranscript } from "./helpers.js";

function engine() {
  const { openTranscript, state } = countingOpen();
  return { listing: newListing({ openTranscript }), opened: state.opened };
}

const indexNames = indexedNames;

const base = (path: string) => path.slice(path.lastIndexOf("/") + 1);

describe("thread/list: the index keeps up with what its process writes", () => {
  test("a transcript its owner writes is indexed without a listing; a new engine lists it opening nothing", async () => {
    const dir = tempDir("written");
    const writer = engine();
    const file = await SessionFile.create({ dir, cwd: "/work/project", onWritten: (path) => writer.listing.noteWritten(path) });
    file.append({ type: "turn_start" });
    file.append({ type: "message", message: userText("Why does the build fail?\nIt passed yesterday.") });
    file.append({ type: "message", message: assistantText("Let me look.") });
    file.append({ type: "thread_name", name: "Build failure" });
    file.close();
    await writer.listing.flush();
    assert.deepEqual(indexNames(dir), [base(file.path)]);
    assert.deepEqual(writer.listing.counters, { listingFilesOpened: 0, listingBytesScanned: 0 }, "keeping the index is not a listing");

    const reader = engine();
    const { threads } = await reader.listing.list({ folders: [dir] });
    assert.equal(threads.length, 1);
    assert.equal(threads[0]!.id, file.header.id);
    assert.equal(threads[0]!.title, "Build failure");
    assert.deepEqual(reader.opened, [], "the index knew the transcript");
    const cold = await newListing().list({ folders: [dir] });
    assert.deepEqual(threads, cold.threads, "what the index says is what a read says");
  });

  test("a write the index missed, as after a crash before its rewrite, is found by the stat check", async () => {
    const dir = tempDir("written-missed");
    const writer = engine();
    const file = await SessionFile.create({ dir, cwd: "/work/project", onWritten: (path) => writer.listing.noteWritten(path) });
    file.append({ type: "message", message: userText("first") });
    await writer.listing.flush();
    const last = file.append({ type: "message", message: assistantText("reply") });
    file.close();
    // The index never hears of this one.
    appendFileSync(file.path, serializeEntry({ type: "thread_name", id: "abcdef012345", parentId: last.id, timestamp: Date.now(), name: "Renamed" }) + "\n");

    const reader = engine();
    const { threads } = await reader.listing.list({ folders: [dir] });
    assert.equal(threads[0]!.title, "Renamed");
    assert.equal(reader.opened.length, 1, "the changed transcript alone is read again");
  });

  test("two writers of one folder's index keep each other's records", async () => {
    const dir = tempDir("written-two");
    const first = engine();
    const second = engine();
    // Both have loaded the folder (no index yet) before either writes.
    await first.listing.list({ folders: [dir] });
    await second.listing.list({ folders: [dir] });
    const a = writeTranscript(dir, { firstUser: "from the first" });
    first.listing.noteWritten(a.path);
    await first.listing.flush();
    const b = writeTranscript(dir, { firstUser: "from the second" });
    second.listing.noteWritten(b.path);
    await second.listing.flush();
    assert.deepEqual(indexNames(dir), [base(a.path), base(b.path)].sort());
    // The first writes again: it carries the second's record in turn.
    const c = writeTranscript(dir, { firstUser: "the first again" });
    first.listing.noteWritten(c.path);
    await first.listing.flush();
    assert.deepEqual(indexNames(dir), [base(a.path), base(b.path), base(c.path)].sort());

    const reader = engine();
    const { threads } = await reader.listing.list({ folders: [dir] });
    assert.equal(threads.length, 3);
    assert.deepEqual(reader.opened, []);
  });

  test("a record carried from another writer is never listed here, nor carried once its transcript went", async () => {
    const dir = tempDir("written-carried");
    const kept = writeTranscript(dir, { firstUser: "kept" });
    const gone = writeTranscript(dir, { firstUser: "deleted later" });
    const other = engine();
    await other.listing.list({ folders: [dir] });
    await other.listing.flush();
    const here = engine();
    await here.listing.list({ folders: [dir] });
    rmSync(gone.path);
    // The other writer rewrites the index from what it saw: the deleted transcript is still in it.
    other.listing.noteWritten(kept.path);
    await other.listing.flush();
    assert.ok(indexNames(dir).includes(base(gone.path)));
    const { threads } = await here.listing.list({ folders: [dir] });
    assert.deepEqual(
      threads.map((t) => t.id),
      [kept.id],
    );
    here.listing.noteWritten(kept.path);
    await here.listing.flush();
    assert.deepEqual(indexNames(dir), [base(kept.path)], "the other writer's record of a file that went is not carried");
  });
});
