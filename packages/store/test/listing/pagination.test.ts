import assert from "node:assert/strict";
import { unlinkSync } from "node:fs";
import { describe, test } from "node:test";
import { MAX_RESPONSE_BYTES } from "../../src/listing/page.js";
import { MAX_SNAPSHOTS, SNAPSHOT_TTL_MS } from "../../src/listing/snapshots.js";
import type { ThreadListing } from "../../src/listing/thread-listing.js";
import type { StoredThreadSummary } from "../../src/listing/types.js";
import { newListing, rejectsWithListingCode, setMtime, tempDir, writeTranscript } from "./helpers.js";

const T0 = Date.parse("2025-03-01T10:00:00.000Z");

/** `count` transcripts, the first the newest. */
function seed(dir: string, count: number, cwd = "/work/project"): string[] {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(writeTranscript(dir, { firstUser: `thread ${i}`, cwd, mtimeMs: T0 - i * 1000 }).id);
  return ids;
}

async function walk(
  listing: ThreadListing,
  request: { folders: string[]; cwd?: string; archived?: boolean; limit?: number; search?: string },
): Promise<StoredThreadSummary[][]> {
  const pages: StoredThreadSummary[][] = [];
  let cursor: string | undefined;
  do {
    const page = await listing.list({ ...request, ...(cursor === undefined ? {} : { cursor }) });
    pages.push(page.threads);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

describe("thread/list: pages and cursors", () => {
  test("pages walk the whole list once, in order, and the last page has no cursor", async () => {
    const dir = tempDir("pages-walk");
    const ids = seed(dir, 23);
    const pages = await walk(newListing(), { folders: [dir], limit: 5 });
    assert.deepEqual(
      pages.map((p) => p.length),
      [5, 5, 5, 5, 3],
    );
    assert.deepEqual(
      pages.flat().map((t) => t.id),
      ids,
    );
  });

  test("later pages come from the first page's snapshot: new, touched and deleted threads do not shift them", async () => {
    const dir = tempDir("pages-stable");
    const ids = seed(dir, 10);
    const listing = newListing();
    const first = await listing.list({ folders: [dir], limit: 4 });
    const fresh = writeTranscript(dir, { firstUser: "newer than all", mtimeMs: T0 + 60_000 });
    const touched = first.threads[3]!;
    setMtime(touched.path, T0 + 120_000);
    const gone = await listing.list({ folders: [dir], limit: 1, cursor: first.nextCursor! });
    unlinkSync(gone.threads[0]!.path);
    const second = await listing.list({ folders: [dir], limit: 3, cursor: gone.nextCursor! });
    assert.deepEqual(
      [...first.threads, ...gone.threads, ...second.threads].map((t) => t.id),
      ids.slice(0, 8),
    );
    const again = await listing.list({ folders: [dir], limit: 3 });
    assert.deepEqual(
      again.threads.map((t) => t.id),
      [touched.id, fresh.id, ids[0]],
    );
  });

  test("at most 32 snapshots are kept; the least recently used goes first", async () => {
    const dir = tempDir("pages-evict");
    seed(dir, 3);
    const listing = newListing();
    const cursors: string[] = [];
    for (let i = 0; i < MAX_SNAPSHOTS; i++) cursors.push((await listing.list({ folders: [dir], limit: 1 })).nextCursor!);
    // Using the oldest renews it, so the second oldest is the one evicted by the 33rd.
    await listing.list({ folders: [dir], limit: 1, cursor: cursors[0]! });
    await listing.list({ folders: [dir], limit: 1 });
    const evicted = await rejectsWithListingCode(listing.list({ folders: [dir], cursor: cursors[1]! }), "invalidCursor");
    assert.equal(evicted.problem, "unknown");
    assert.equal((await listing.list({ folders: [dir], cursor: cursors[0]! })).threads.length, 2);
    assert.equal((await listing.list({ folders: [dir], cursor: cursors[2]! })).threads.length, 2);
  });

  test("snapshots expire five minutes after their last use", async () => {
    const dir = tempDir("pages-expiry");
    seed(dir, 4);
    let now = T0;
    const listing = newListing({ now: () => now });
    const first = await listing.list({ folders: [dir], limit: 1 });
    now += SNAPSHOT_TTL_MS - 1;
    const second = await listing.list({ folders: [dir], limit: 1, cursor: first.nextCursor! });
    now += SNAPSHOT_TTL_MS - 1;
    // Still alive: the second page renewed it.
    const third = await listing.list({ folders: [dir], limit: 1, cursor: second.nextCursor! });
    now += SNAPSHOT_TTL_MS;
    const expired = await rejectsWithListingCode(listing.list({ folders: [dir], limit: 1, cursor: third.nextCursor! }), "invalidCursor");
    assert.equal(expired.problem, "unknown");
  });

  test("a cursor used with other filters is invalidCursor; the folders may differ", async () => {
    const dir = tempDir("pages-filters");
    seed(dir, 3, "/work/a");
    seed(dir, 3, "/work/b");
    const listing = newListing();
    const forA = (await listing.list({ folders: [dir], cwd: "/work/a", limit: 1 })).nextCursor!;
    const active = (await listing.list({ folders: [dir], limit: 1 })).nextCursor!;
    for (const [cursor, request] of [
      [forA, { cwd: "/work/b" }],
      [forA, {}],
      [forA, { cwd: "/work/a", archived: true }],
      [active, { archived: true }],
      [active, { cwd: "/work/a" }],
    ] as const) {
      const error = await rejectsWithListingCode(listing.list({ folders: [dir], cursor, ...request }), "invalidCursor");
      assert.equal(error.problem, "filterMismatch");
    }
    const same = await listing.list({ folders: [dir, dir], cwd: "/work/a/", cursor: forA });
    assert.deepEqual(
      same.threads.map((t) => t.cwd),
      ["/work/a", "/work/a"],
    );
  });

  test("malformed and foreign cursors are invalidCursor", async () => {
    const dir = tempDir("pages-malformed");
    seed(dir, 3);
    const listing = newListing();
    const good = (await listing.list({ folders: [dir], limit: 1 })).nextCursor!;
    const { s } = JSON.parse(Buffer.from(good, "base64url").toString()) as { s: string };
    const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    for (const cursor of [
      "",
      "%%%",
      "bm90IGpzb24",
      forge(null),
      forge({ s, o: 0 }),
      forge({ s, o: -1 }),
      forge({ s, o: 1.5 }),
      forge({ s: 1, o: 1 }),
      forge({ s, o: 99 }),
    ]) {
      const error = await rejectsWithListingCode(listing.list({ folders: [dir], cursor }), "invalidCursor");
      assert.equal(error.problem, "malformed", cursor);
    }
    const other = newListing();
    const foreign = await rejectsWithListingCode(other.list({ folders: [dir], cursor: good }), "invalidCursor");
    assert.equal(foreign.problem, "unknown");
  });

  test("a page whose summaries would pass 1 MiB is cut short and continues on the next page", async () => {
    const dir = tempDir("pages-bytes");
    // Long project paths make each summary about 40 KiB: 200 of them would be 8 MiB.
    const cwd = `/work/${"deep/".repeat(8000)}project`;
    const ids = seed(dir, 60, cwd);
    const listing = newListing();
    const pages = await walk(listing, { folders: [dir], limit: 200 });
    assert.ok(pages.length >= 3, `${pages.length} pages`);
    for (const page of pages) {
      const bytes = Buffer.byteLength(JSON.stringify({ id: 1, result: { threads: page, nextCursor: "x".repeat(200) } }));
      assert.ok(bytes <= MAX_RESPONSE_BYTES, `${bytes} bytes`);
    }
    assert.ok(Buffer.byteLength(JSON.stringify(pages[0])) > MAX_RESPONSE_BYTES - 64 * 1024, "a page is filled close to the limit");
    assert.deepEqual(
      pages.flat().map((t) => t.id),
      ids,
    );
  });
});

describe("thread/list: a title search", () => {
  test("matches the shown title ignoring case, a name over the first message, non-ASCII and quotes too; its pages keep it", async () => {
    const dir = tempDir("search");
    const titled = (firstUser: string, at: number, names?: string[]) =>
      writeTranscript(dir, { firstUser, mtimeMs: T0 - at * 1000, ...(names ? { names } : {}) }).id;
    const fix = titled("Fix the flaky build", 0);
    const renamed = titled("something else", 1, ["Build: release notes"]);
    const nameHides = titled("build the parser", 2, ["Parser work"]);
    const accented = titled("Réécrire l'Éditeur", 3);
    const quoted = titled('say "build" twice', 4);
    for (let i = 0; i < 30; i++) titled(`unrelated ${i}`, 10 + i);
    const listing = newListing();
    const ids = async (search: string, limit = 50) => (await walk(listing, { folders: [dir], limit, search })).flat().map((t) => t.id);
    assert.deepEqual(await ids("BUILD"), [fix, renamed, quoted], "the name, not the first message, is what a named thread matches");
    assert.ok(!(await ids("build")).includes(nameHides));
    assert.deepEqual(await ids("éditeur"), [accented]);
    assert.deepEqual(await ids('"build"'), [quoted]);
    assert.deepEqual(await ids("no such title"), []);
    const unrelated = await ids("unrelated");
    assert.equal(unrelated.length, 30);
    assert.deepEqual(await ids("unrelated", 7), unrelated, "pages of a search walk the same rows");
    const first = await listing.list({ folders: [dir], limit: 2, search: "build" });
    assert.equal(first.threads.length, 2);
    await rejectsWithListingCode(listing.list({ folders: [dir], limit: 2, cursor: first.nextCursor!, search: "parser" }), "invalidCursor");
    await rejectsWithListingCode(listing.list({ folders: [dir], limit: 2, cursor: first.nextCursor! }), "invalidCursor");
    assert.deepEqual(
      (await listing.list({ folders: [dir], limit: 2, cursor: first.nextCursor!, search: "build" })).threads.map((t) => t.id),
      [quoted],
    );
  });

  test("a search through a new engine reading the index finds the same threads, and its records stay encoded", async () => {
    const dir = tempDir("search-index");
    for (let i = 0; i < 12; i++) writeTranscript(dir, { firstUser: i % 3 === 0 ? `Deploy step ${i}` : `other ${i}`, mtimeMs: T0 - i * 1000 });
    const cold = newListing();
    const expected = (await cold.list({ folders: [dir], search: "deploy" })).threads;
    assert.equal(expected.length, 4);
    await cold.flush();
    assert.deepEqual((await newListing().list({ folders: [dir], search: "DEPLOY" })).threads, expected);
  });
});
