import assert from "node:assert/strict";
import { appendFileSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { STAMP_BYTES, STAMP_FILE } from "../../src/listing/index-stamp.js";
import type { ListingChange, ThreadListingOptions } from "../../src/listing/types.js";
import { serializeEntry } from "../../src/session/format.js";
import { countingOpen, newListing, tempDir, writeTranscript } from "./helpers.js";

const T0 = Date.parse("2025-06-01T10:00:00.000Z");

function seed(dir: string, count: number): Array<{ path: string; id: string }> {
  return Array.from({ length: count }, (_, i) => writeTranscript(dir, { firstUser: `thread ${i}`, turns: 1, mtimeMs: T0 - i * 1000 }));
}

/** An engine that trusts stamped indexes, with what it opened and what it reported changed. */
function trusting(options: ThreadListingOptions = {}) {
  const { openTranscript, state } = countingOpen();
  const changes: ListingChange[] = [];
  const listing = newListing({ openTranscript, trustIndex: true, onChanged: (told) => changes.push(...told), ...options });
  return { listing, opened: state.opened, changes };
}

/** Lists the folder with an engine of today's kind and waits for the index it writes, stamp included. */
async function writeIndex(dir: string): Promise<void> {
  const writer = newListing();
  await writer.list({ folders: [dir] });
  await writer.flush();
}

/** A name entry appended by a program that does not keep the index. */
function renameOutside(path: string, name: string): void {
  appendFileSync(path, serializeEntry({ type: "thread_name", id: `x${name.length}${Date.now() % 100000}`, parentId: null, timestamp: T0, name }) + "\n");
}

/**
 * Waits until the file clock is past the folder's last change. A clock that
 * ticks coarsely could give a change made in the same tick the same folder
 * time; that blind spot is the background look's to repair, not this test's.
 */
async function pastFolderClock(dir: string): Promise<void> {
  const probe = join(tempDir("clock"), "probe");
  const folderMs = statSync(dir).mtimeMs;
  for (;;) {
    writeFileSync(probe, "");
    if (statSync(probe).mtimeMs > folderMs) return;
    await nextTurn();
  }
}

const threadCount = () => readdirSync("/proc/self/task").length;

describe("thread/list: a first page from a stamped index", () => {
  test("a new engine answers from the index, opening and statting no transcript; the look after it reports what another program appended", async () => {
    const dir = tempDir("trusted");
    const made = seed(dir, 3);
    await writeIndex(dir);
    const indexed = (await newListing().list({ folders: [dir] })).threads;
    const edited = made[2]!;
    renameOutside(edited.path, "Renamed outside");

    const reader = trusting();
    const first = await reader.listing.list({ folders: [dir] });
    // A stat would have seen the transcript grow and read it: the page is the index's, as it was written.
    assert.deepEqual(first.threads, indexed);
    assert.deepEqual(reader.opened, []);

    await reader.listing.flush();
    assert.equal(reader.changes.length, 1, "one thread changed behind the index");
    const [change] = reader.changes;
    assert.equal(change!.before?.id, edited.id);
    assert.equal(change!.before?.name, undefined);
    assert.equal(change!.after?.id, edited.id);
    assert.equal(change!.after?.name, "Renamed outside");
    assert.deepEqual(reader.opened, [edited.path], "the look read the one transcript that changed");

    const second = await reader.listing.list({ folders: [dir] });
    assert.equal(second.threads[0]!.id, edited.id, "appended last, listed first");
    assert.equal(second.threads[0]!.title, "Renamed outside");

    // The look wrote the index again, stamped: the next engine's first page is right and reads nothing.
    const next = trusting();
    assert.deepEqual((await next.listing.list({ folders: [dir] })).threads, second.threads);
    await next.listing.flush();
    assert.deepEqual(next.opened, []);
    assert.deepEqual(next.changes, []);
  });

  test("a transcript added or removed since the index was written moves the folder's times: the first page looks as always", async () => {
    const dir = tempDir("trusted-folder");
    const made = seed(dir, 3);
    await writeIndex(dir);
    await pastFolderClock(dir);
    const added = writeTranscript(dir, { firstUser: "added later", mtimeMs: T0 + 1000 });
    renameOutside(made[1]!.path, "Seen by the look");

    const reader = trusting();
    const { threads } = await reader.listing.list({ folders: [dir] });
    assert.equal(threads[0]!.id, made[1]!.id);
    assert.equal(threads[0]!.title, "Seen by the look");
    assert.ok(threads.some((thread) => thread.id === added.id));
    await reader.listing.flush();
    assert.deepEqual(reader.changes, [], "nothing was served that a look had not checked");

    await pastFolderClock(dir);
    rmSync(added.path);
    const after = trusting();
    assert.ok(!(await after.listing.list({ folders: [dir] })).threads.some((thread) => thread.id === added.id));
    await after.listing.flush();
    assert.deepEqual(after.changes, []);
  });

  test("an index rewritten in place, truncated, edited, of another version, with a torn top file or a torn stamp is not trusted", async () => {
    const dir = tempDir("trusted-damaged");
    const [thread] = seed(dir, 1);
    const top = join(dir, ".thread-index.json");
    const shard = join(dir, ".thread-index-1-0.tsv");
    const stampFile = join(dir, STAMP_FILE);
    await writeIndex(dir);
    const older = readFileSync(shard);
    const damages: Record<string, () => void> = {
      // Whole and well-formed, but not the shard the stamp names.
      "an older shard written back in place": () => writeFileSync(shard, older),
      "a shard cut short": () => truncateSync(shard, statSync(shard).size - 3),
      "a shard edited in place": () => appendFileSync(shard, "\n"),
      "another version": () => writeFileSync(top, readFileSync(top, "utf8").replace('"version":4', '"version":3')),
      "a torn top file": () => writeFileSync(top, readFileSync(top, "utf8").slice(0, 10)),
      "a torn stamp": () => writeFileSync(stampFile, readFileSync(stampFile, "latin1").slice(0, 60).padEnd(STAMP_BYTES, " ")),
    };
    for (const [damage, apply] of Object.entries(damages)) {
      renameOutside(thread!.path, damage);
      apply();
      const reader = trusting();
      const { threads } = await reader.listing.list({ folders: [dir] });
      assert.equal(threads[0]!.title, damage, `${damage}: the transcript was statted and read`);
      // Its look rewrites the index, stamped, for the next damage.
      await reader.listing.flush();
      assert.deepEqual(reader.changes, [], damage);
    }
  });

  test("an index without a stamp, as an older version leaves it, is stamped by the next look that finds it right", async () => {
    const dir = tempDir("trusted-upgrade");
    const made = seed(dir, 2);
    await writeIndex(dir);
    rmSync(join(dir, STAMP_FILE));
    await writeIndex(dir);
    renameOutside(made[0]!.path, "After the stamp");
    const reader = trusting();
    const { threads } = await reader.listing.list({ folders: [dir] });
    assert.equal(threads[0]!.title, "thread 0", "served from the index, stamped again");
    await reader.listing.flush();
    assert.equal(reader.changes[0]?.after?.name, "After the stamp");
  });

  test("closing the engine before the look after a trusted page starts stops it: nothing is reported, nothing keeps running", async () => {
    const dir = tempDir("trusted-close");
    const made = seed(dir, 12);
    await writeIndex(dir);
    renameOutside(made[5]!.path, "Never seen");
    const threads = threadCount();
    const resources = process.getActiveResourcesInfo().length;

    // A worker does the look, as for a big folder.
    const reader = trusting({ workerLookNames: 1 });
    await reader.listing.list({ folders: [dir] });
    await reader.listing.close();
    assert.deepEqual(reader.changes, []);
    assert.deepEqual(reader.opened, []);
    assert.equal(process.getActiveResourcesInfo().length, resources, "no timer or handle is left");
    assert.ok(threadCount() <= threads, "no worker thread was started");
  });

  test("closing the engine while the look runs stops it: its worker ends and nothing is reported", async () => {
    const dir = tempDir("trusted-close-running");
    const made = seed(dir, 12);
    await writeIndex(dir);
    for (const at of [2, 7]) renameOutside(made[at]!.path, "Renamed while closing");
    const threads = threadCount();

    let closing: Promise<void> | undefined;
    const { openTranscript } = countingOpen();
    const reader = trusting({
      workerLookNames: 1,
      // The look is reading what changed when the server shuts down.
      openTranscript: (path) => {
        closing ??= reader.listing.close();
        return openTranscript(path);
      },
    });
    await reader.listing.list({ folders: [dir] });
    await reader.listing.flush();
    assert.ok(closing !== undefined, "the look reached the changed transcripts");
    await closing;
    assert.deepEqual(reader.changes, [], "a closed engine tells no one");
    while (threadCount() > threads) await nextTurn();
  });
});
