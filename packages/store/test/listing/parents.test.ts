import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ThreadListing } from "../../src/listing/thread-listing.js";
import type { StoredThreadSummary } from "../../src/listing/types.js";
import { countingOpen, newListing, rejectsWithListingCode, tempDir, writeTranscript } from "./helpers.js";

const T0 = Date.parse("2025-07-01T10:00:00.000Z");

/**
 * A parent, its three children (newest first), a grandchild, and threads
 * that name the parent's id without being its children: one forked from it,
 * one whose title holds it.
 */
function seed(dir: string) {
  const parent = writeTranscript(dir, { firstUser: "the parent", mtimeMs: T0 });
  const children = [1, 2, 3].map((i) =>
    writeTranscript(dir, { firstUser: `child ${i}`, parentThreadId: parent.id, parentCallId: `call_${i}`, mtimeMs: T0 - i * 1000 }),
  );
  writeTranscript(dir, { firstUser: "grandchild", parentThreadId: children[0]!.id, parentCallId: "call_g", mtimeMs: T0 - 500 });
  writeTranscript(dir, { firstUser: "a fork", forkedFromId: parent.id, mtimeMs: T0 - 1500 });
  writeTranscript(dir, { firstUser: `about "${parent.id}"`, mtimeMs: T0 - 2500 });
  writeTranscript(dir, { firstUser: "unrelated", mtimeMs: T0 - 5000 });
  return { parent, children };
}

/** Every page of a listing filtered by `parent`, `limit` at a time; checks a cursor keeps the filter. */
async function allPages(listing: ThreadListing, dir: string, parent: string, limit: number): Promise<StoredThreadSummary[][]> {
  const pages: StoredThreadSummary[][] = [];
  let cursor: string | undefined;
  do {
    const page = await listing.list({ folders: [dir], parentThreadId: parent, limit, ...(cursor === undefined ? {} : { cursor }) });
    pages.push(page.threads);
    cursor = page.nextCursor;
    if (cursor !== undefined) {
      for (const other of [{}, { parentThreadId: "someone-else" }]) {
        const error = await rejectsWithListingCode(listing.list({ folders: [dir], limit, cursor, ...other }), "invalidCursor");
        assert.equal(error.problem, "filterMismatch");
      }
    }
  } while (cursor !== undefined);
  return pages;
}

function checkChildren(threads: readonly StoredThreadSummary[], parentId: string, children: ReadonlyArray<{ id: string }>): void {
  assert.deepEqual(
    threads.map((thread) => thread.id),
    children.map((child) => child.id),
  );
  threads.forEach((thread, at) => {
    assert.equal(thread.parentThreadId, parentId);
    assert.equal(thread.parentCallId, `call_${at + 1}`);
  });
}

describe("thread/list: a parent's sub-agents", () => {
  test("parentThreadId answers exactly the children, cold and warm, paged with the filter kept; without it everything is listed", async () => {
    const dir = tempDir("parents");
    const { parent, children } = seed(dir);
    const { openTranscript, state } = countingOpen();
    const listing = newListing({ openTranscript });

    const cold = await allPages(listing, dir, parent.id, 2);
    assert.deepEqual(
      cold.map((page) => page.length),
      [2, 1],
    );
    checkChildren(cold.flat(), parent.id, children);
    assert.equal(state.opened.length, 8, "the cold listing read every transcript once");

    const warm = await allPages(listing, dir, parent.id, 2);
    assert.deepEqual(warm, cold);
    assert.equal(state.opened.length, 8, "the warm listing read nothing");

    const all = (await listing.list({ folders: [dir] })).threads;
    assert.equal(all.length, 8);
    const top = all.find((thread) => thread.id === parent.id)!;
    assert.equal("parentThreadId" in top, false);
    assert.equal("parentCallId" in top, false);
    assert.deepEqual((await listing.list({ folders: [dir], parentThreadId: "00000000-0000-4000-8000-000000000000" })).threads, []);
    const searched = await listing.list({ folders: [dir], parentThreadId: parent.id, search: "CHILD 2" });
    assert.deepEqual(
      searched.threads.map((thread) => thread.id),
      [children[1]!.id],
    );
  });

  test("a new engine's first page from the stamped index keeps the filter, its records carrying the parent fields", async () => {
    const dir = tempDir("parents-trusted");
    const { parent, children } = seed(dir);
    const writer = newListing();
    await writer.list({ folders: [dir] });
    await writer.flush();

    const { openTranscript, state } = countingOpen();
    const reader = newListing({ openTranscript, trustIndex: true });
    const pages = await allPages(reader, dir, parent.id, 2);
    assert.deepEqual(state.opened, [], "served from the index, no transcript read");
    assert.deepEqual(
      pages.map((page) => page.length),
      [2, 1],
    );
    checkChildren(pages.flat(), parent.id, children);
    await reader.flush();
    assert.deepEqual(state.opened, [], "the look after it found the index right");
  });
});
