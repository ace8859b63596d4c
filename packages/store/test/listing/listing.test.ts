import assert from "node:assert/strict";
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, test } from "node:test";
import { SessionFile } from "../../src/session/session-file.js";
import { forkSession } from "../../src/session/fork.js";
import { userText } from "../session/helpers.js";
import { newListing, rejectsWithListingCode, tempDir, writeTranscript } from "./helpers.js";

const T0 = Date.parse("2025-03-01T10:00:00.000Z");

describe("thread/list: what a listing shows", () => {
  test("summaries come newest first by mtime, equal times by id, with every field", async () => {
    const dir = tempDir("listing-order");
    const a = writeTranscript(dir, { id: "00000000-0000-4000-8000-00000000000a", firstUser: "first", mtimeMs: T0 + 1000 });
    const b = writeTranscript(dir, {
      id: "00000000-0000-4000-8000-00000000000b",
      firstUser: "second",
      mtimeMs: T0 + 3000,
      createdAt: "2025-02-01T00:00:00.000Z",
    });
    const c = writeTranscript(dir, { id: "00000000-0000-4000-8000-00000000000c", firstUser: "third", mtimeMs: T0 + 1000 });
    const { threads, nextCursor } = await newListing().list({ folders: [dir] });
    assert.equal(nextCursor, undefined);
    assert.deepEqual(
      threads.map((t) => t.id),
      [b.id, a.id, c.id],
    );
    assert.deepEqual(threads[0], {
      id: b.id,
      title: "second",
      cwd: "/work/project",
      createdAt: "2025-02-01T00:00:00.000Z",
      updatedAt: new Date(T0 + 3000).toISOString(),
      workspaceMode: "local",
      path: b.path,
      archived: false,
    });
  });

  test("titles: the first non-blank line of the first user message, bounded; names win and the latest one counts", async () => {
    const dir = tempDir("listing-titles");
    const long = "x".repeat(500);
    const plain = writeTranscript(dir, { firstUser: "\n\n   Fix the build  \nthen the tests", turns: 2, mtimeMs: T0 + 4 });
    const bounded = writeTranscript(dir, { firstUser: long, mtimeMs: T0 + 3 });
    // Named right after the first turn and never again: a name early in the file still wins.
    const named = writeTranscript(dir, { firstUser: "hello", names: ["first name", "second name"], turns: 5, mtimeMs: T0 + 2 });
    const empty = writeTranscript(dir, { mtimeMs: T0 + 1 });
    const { threads } = await newListing().list({ folders: [dir] });
    const byId = new Map(threads.map((t) => [t.id, t]));
    assert.equal(byId.get(plain.id)!.title, "Fix the build");
    assert.equal(byId.get(bounded.id)!.title, `${"x".repeat(119)}…`);
    assert.equal(byId.get(named.id)!.title, "second name");
    assert.equal(byId.get(named.id)!.name, "second name");
    assert.equal(byId.get(plain.id)!.name, undefined);
    assert.equal(byId.get(empty.id)!.title, "");
  });

  test("the cwd filter compares resolved paths; archived lists the archived folders instead", async () => {
    const dir = tempDir("listing-filters");
    const mine = writeTranscript(dir, { cwd: "/work/mine", firstUser: "mine" });
    writeTranscript(dir, { cwd: "/work/other", firstUser: "other" });
    const archived = writeTranscript(join(dir, "archived"), { cwd: "/work/mine", firstUser: "old" });
    const listing = newListing();
    const filtered = await listing.list({ folders: [dir], cwd: "/work/./mine/" });
    assert.deepEqual(
      filtered.threads.map((t) => t.id),
      [mine.id],
    );
    const old = await listing.list({ folders: [dir], archived: true });
    assert.deepEqual(
      old.threads.map((t) => [t.id, t.archived, t.path]),
      [[archived.id, true, archived.path]],
    );
    const all = await listing.list({ folders: [dir] });
    assert.equal(all.threads.length, 2, "the archived folder is not part of the active listing");
  });

  test("several folders are merged, a folder named twice counts once, a missing folder is empty", async () => {
    const one = tempDir("listing-one");
    const two = tempDir("listing-two");
    const a = writeTranscript(one, { firstUser: "a", mtimeMs: T0 });
    const b = writeTranscript(two, { firstUser: "b", mtimeMs: T0 + 10 });
    const { threads } = await newListing().list({ folders: [one, two, `${one}/`, join(one, "nope")] });
    assert.deepEqual(
      threads.map((t) => t.id),
      [b.id, a.id],
    );
    assert.deepEqual(await newListing().list({ folders: [] }), { threads: [] });
  });

  test("real transcripts: names set by a SessionFile and fork origins from the child's header", async () => {
    const dir = tempDir("listing-real");
    let now = T0;
    const file = await SessionFile.create({ dir, cwd: "/work/real", now: () => now++ });
    file.append({ type: "message", message: userText("Explain the session format") });
    file.append({ type: "thread_name", name: "Session format" });
    const source = file.path;
    file.close();
    const fork = await forkSession({ source, dir, now: () => now++ });
    const { threads } = await newListing().list({ folders: [dir] });
    const child = threads.find((t) => t.path === fork.path)!;
    const parent = threads.find((t) => t.path === source)!;
    assert.equal(child.forkedFromId, parent.id);
    assert.equal(parent.forkedFromId, undefined);
    assert.equal(child.title, "Session format");
    assert.equal(parent.name, "Session format");
  });

  test("only .jsonl files with a session header are listed; symlinked transcripts are followed", async () => {
    const dir = tempDir("listing-others");
    const real = writeTranscript(dir, { firstUser: "real" });
    writeFileSync(join(dir, "notes.txt"), "not a transcript\n");
    writeFileSync(join(dir, "bogus.jsonl"), '{"type":"message"}\n');
    writeFileSync(join(dir, "empty.jsonl"), "");
    writeFileSync(join(dir, "x.jsonl.lock"), "{}");
    mkdirSync(join(dir, "folder.jsonl"));
    const elsewhere = tempDir("listing-elsewhere");
    const linked = writeTranscript(elsewhere, { firstUser: "linked" });
    symlinkSync(linked.path, join(dir, basename(linked.path)));
    const { threads } = await newListing().list({ folders: [dir] });
    assert.deepEqual(threads.map((t) => t.id).sort(), [real.id, linked.id].sort());
  });

  test("a thread moved to the archive leaves the active listing and joins the archived one", async () => {
    const dir = tempDir("listing-move");
    const moved = writeTranscript(dir, { firstUser: "to archive" });
    const listing = newListing();
    assert.equal((await listing.list({ folders: [dir] })).threads.length, 1);
    mkdirSync(join(dir, "archived"));
    renameSync(moved.path, join(dir, "archived", basename(moved.path)));
    assert.equal((await listing.list({ folders: [dir] })).threads.length, 0);
    assert.deepEqual(
      (await listing.list({ folders: [dir], archived: true })).threads.map((t) => t.id),
      [moved.id],
    );
  });

  test("a limit outside 1..200 is invalidParams; an unreadable folder is io", async () => {
    const dir = tempDir("listing-bad");
    for (const limit of [0, 201, 1.5, Number.NaN]) await rejectsWithListingCode(newListing().list({ folders: [dir], limit }), "invalidParams");
    const file = join(dir, "file");
    writeFileSync(file, "");
    // A file where a folder should be is no folder: nothing to list.
    assert.deepEqual(await newListing().list({ folders: [file] }), { threads: [] });
    const loop = join(dir, "loop");
    symlinkSync(loop, loop);
    const error = await rejectsWithListingCode(newListing().list({ folders: [loop] }), "io");
    assert.equal(error.path, loop);
  });
});
