import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { Deadline } from "../../src/lifecycle/shutdown.js";
import { runLister, type ListerLimits } from "../../src/search/lister.js";
import { ListingCache, type SearchClock } from "../../src/search/listing-cache.js";
import { FileSearch } from "../../src/search/service.js";
import { waitUntil } from "../support/harness.js";
import { isAlive, pidsIn } from "../support/processes.js";

/**
 * A stand-in for fd, a real process: its first argument says what to do,
 * and it writes its pid where PIDS says. `gate` waits for the file GATE
 * before it lists; `hang` never ends.
 */
const LISTER = `#!/bin/sh
echo $$ >> "$PIDS"
case "$1" in
  list) printf './a.txt\\0b/c.txt\\0' ;;
  many) i=0; while [ $i -lt 10 ]; do printf "dir/file$i.txt\\0"; i=$((i+1)); done ;;
  partial) printf 'a.txt\\0'; echo "fd: permission denied: secret/" >&2; exit 1 ;;
  fail) echo "fd: something broke" >&2; exit 2 ;;
  gate) while [ ! -e "$GATE" ]; do sleep 0.01; done; printf 'late.txt\\0' ;;
  hang) exec sleep 1000 ;;
esac
`;

const root = mkdtempSync(join(tmpdir(), "kc-listing-cache-"));
after(() => rmSync(root, { recursive: true, force: true }));
const bin = join(root, "bin");
mkdirSync(bin);
writeFileSync(join(bin, "lister"), LISTER);
chmodSync(join(bin, "lister"), 0o755);
const folders = Array.from({ length: 10 }, (_, i) => {
  const dir = join(root, `folder${i}`);
  mkdirSync(dir);
  return dir;
});

/** A clock that moves when the test says: deadlines fire when now passes them. */
function manualClock() {
  let now = 0;
  const deadlines: { at: number; fire(): void; cancelled: boolean }[] = [];
  const clock: SearchClock = {
    now: () => now,
    after(ms): Deadline {
      let fire!: () => void;
      const promise = new Promise<void>((resolve) => (fire = resolve));
      const deadline = { at: now + ms, fire, cancelled: false };
      deadlines.push(deadline);
      return { promise, cancel: () => (deadline.cancelled = true) };
    },
  };
  const advance = (ms: number) => {
    now += ms;
    for (const d of deadlines) if (!d.cancelled && d.at <= now) d.fire();
  };
  return { clock, advance };
}

let case_ = 0;
/** A cache over the stand-in lister, every listing in `mode` unless a folder's name is in `modes`. */
function setUp(mode: string, options: { limits?: Partial<ListerLimits>; modes?: Record<string, string> } = {}) {
  const dir = join(root, `case${++case_}`);
  mkdirSync(dir);
  const pids = join(dir, "pids");
  const gate = join(dir, "gate");
  const { clock, advance } = manualClock();
  const runs: string[] = [];
  const cache = new ListingCache({
    clock,
    ttlMs: 10_000,
    maxFolders: 8,
    maxRunning: 2,
    timeoutMs: 15_000,
    list: (cwd, signal, deadline) => {
      runs.push(cwd);
      const name = cwd.slice(cwd.lastIndexOf("/") + 1);
      return runLister({
        program: join(bin, "lister"),
        args: [options.modes?.[name] ?? mode],
        cwd,
        env: { PATH: process.env.PATH, PIDS: pids, GATE: gate },
        limits: { maxPaths: 1000, maxBytes: 1 << 20, ...options.limits },
        signal,
        deadline: deadline.promise,
        deadlineText: "15 s",
      });
    },
  });
  const started = () => pidsIn(pids);
  return { cache, advance, runs, started, open: () => writeFileSync(gate, ""), signal: () => new AbortController() };
}

const paths = (listing: { paths: { count: number; path(i: number): string } }) => Array.from({ length: listing.paths.count }, (_, i) => listing.paths.path(i));

describe("spec: file/search listings (ten-second TTL, eight folders, two at once, caps, timeout)", () => {
  test("a listing answers for its folder for ten seconds, then the folder is listed again", async () => {
    const { cache, advance, runs } = setUp("list");
    const never = new AbortController().signal;
    assert.deepEqual(paths(await cache.get(folders[0]!, never)), ["a.txt", "b/c.txt"]);
    advance(9_999);
    await cache.get(folders[0]!, never);
    assert.equal(runs.length, 1);
    advance(1);
    await cache.get(folders[0]!, never);
    assert.equal(runs.length, 2);
  });

  test("a listing nobody asks for again is let go when its ten seconds are up, not kept all day", async () => {
    const { cache, advance } = setUp("list");
    const never = new AbortController().signal;
    await cache.get(folders[0]!, never);
    assert.equal(cache.activity.kept, 1);
    advance(9_999);
    await Promise.resolve();
    assert.equal(cache.activity.kept, 1);
    advance(1);
    await waitUntil("the listing dropped", () => cache.activity.kept === 0);
  });

  test("at most eight folders are kept: the least recently used goes", async () => {
    const { cache, runs } = setUp("list");
    const never = new AbortController().signal;
    for (const folder of folders.slice(0, 8)) await cache.get(folder, never);
    await cache.get(folders[0]!, never);
    await cache.get(folders[8]!, never);
    assert.equal(cache.activity.kept, 8);
    assert.equal(runs.length, 9);
    await cache.get(folders[0]!, never);
    assert.equal(runs.length, 9, "folder0 was used last but one: kept");
    await cache.get(folders[1]!, never);
    assert.equal(runs.length, 10, "folder1 was the least recently used: listed again");
  });

  test("at most two listings run at once; the others wait, and searches of one folder share one run", async () => {
    const { cache, runs, started, open } = setUp("gate");
    const never = new AbortController().signal;
    const pending = [cache.get(folders[0]!, never), cache.get(folders[1]!, never), cache.get(folders[2]!, never), cache.get(folders[0]!, never)];
    await waitUntil("two listers started", () => started().length === 2);
    assert.deepEqual(cache.activity, { running: 2, waiting: 1, kept: 0 });
    assert.deepEqual(runs, [folders[0], folders[1]]);
    open();
    const listings = await Promise.all(pending);
    assert.deepEqual(listings.map(paths), [["late.txt"], ["late.txt"], ["late.txt"], ["late.txt"]]);
    assert.equal(listings[0], listings[3]);
    assert.deepEqual(runs, [folders[0], folders[1], folders[2]]);
  });

  test("a listing past its fifteen seconds is killed and rejects with internal", async () => {
    const { cache, advance, started } = setUp("hang");
    const listing = cache.get(folders[0]!, new AbortController().signal);
    await waitUntil("the lister started", () => started().length === 1);
    advance(14_999);
    assert.equal(cache.activity.running, 1);
    advance(1);
    await assert.rejects(listing, (error: { code?: string; message: string }) => error.code === "internal" && /within 15 s/.test(error.message));
    assert.equal(isAlive(started()[0]!), false);
    assert.equal(cache.activity.running, 0);
  });

  test("output from a lister that failed is answered but not kept; failing with no output rejects with internal", async () => {
    const partial = setUp("partial");
    const never = new AbortController().signal;
    assert.deepEqual(paths(await partial.cache.get(folders[0]!, never)), ["a.txt"]);
    await partial.cache.get(folders[0]!, never);
    assert.equal(partial.runs.length, 2);
    const failing = setUp("fail");
    await assert.rejects(
      failing.cache.get(folders[0]!, never),
      (error: { code?: string; message: string }) => error.code === "internal" && error.message.includes("something broke"),
    );
  });

  test("past the path cap or the byte cap the listing is cut, kept, and marked truncated", async () => {
    const byPaths = setUp("many", { limits: { maxPaths: 4 } });
    const never = new AbortController().signal;
    const listing = await byPaths.cache.get(folders[0]!, never);
    assert.deepEqual(paths(listing), ["dir/file0.txt", "dir/file1.txt", "dir/file2.txt", "dir/file3.txt"]);
    assert.equal(listing.truncated, true);
    await byPaths.cache.get(folders[0]!, never);
    assert.equal(byPaths.runs.length, 1, "a truncated listing is still kept");
    const byBytes = setUp("many", { limits: { maxBytes: 30 } });
    const cut = await byBytes.cache.get(folders[0]!, never);
    assert.deepEqual(paths(cut), ["dir/file0.txt", "dir/file1.txt"]);
    assert.equal(cut.truncated, true);
    const exact = await setUp("many", { limits: { maxPaths: 10 } }).cache.get(folders[0]!, never);
    assert.equal(exact.truncated, false);
  });

  test("when no search waits for a listing any more, its process is killed", async () => {
    const { cache, started } = setUp("hang");
    const first = new AbortController();
    const second = new AbortController();
    const a = cache.get(folders[0]!, first.signal);
    const b = cache.get(folders[0]!, second.signal);
    await waitUntil("the lister started", () => started().length === 1);
    first.abort(new Error("gone"));
    await assert.rejects(a, /gone/);
    assert.equal(isAlive(started()[0]!), true, "another search still waits");
    second.abort(new Error("gone too"));
    await assert.rejects(b, /gone too/);
    await waitUntil("the lister killed", () => !isAlive(started()[0]!));
    await waitUntil("no listing running", () => cache.activity.running === 0);
  });

  test("close rejects what waits with its error, kills the listers, and resolves once they are gone", async () => {
    const { cache, started } = setUp("hang");
    const pending = [0, 1, 2].map((i) => assert.rejects(cache.get(folders[i]!, new AbortController().signal), /closing/));
    await waitUntil("two listers started", () => started().length === 2);
    await cache.close(new Error("closing"));
    await Promise.all(pending);
    for (const pid of started()) assert.equal(isAlive(pid), false);
    await assert.rejects(cache.get(folders[0]!, new AbortController().signal), /closing/);
  });
});

describe("spec: file/search superseding and errors (FileSearch)", () => {
  function service(mode: string) {
    const dir = join(root, `case${++case_}`);
    mkdirSync(dir);
    const pids = join(dir, "pids");
    const gate = join(dir, "gate");
    // The stand-in takes fd's own arguments, so its mode comes from a file beside it.
    const fdBin = join(dir, "bin");
    mkdirSync(fdBin);
    writeFileSync(join(fdBin, "fd"), `#!/bin/sh\nexec "${join(bin, "lister")}" ${mode}\n`);
    chmodSync(join(fdBin, "fd"), 0o755);
    const search = new FileSearch({ env: () => ({ PATH: process.env.PATH, PIDS: pids, GATE: gate }), pathEnv: () => ({ PATH: fdBin }) });
    const started = () => pidsIn(pids);
    return { search, started, open: () => writeFileSync(gate, "") };
  }
  const never = new AbortController().signal;

  test("a newer search with the same searchId answers the older at once with no files; the listing goes on for the newer", async () => {
    const { search, started, open } = service("gate");
    const older = search.search({ cwd: folders[0]!, query: "late", searchId: "picker" }, never);
    await waitUntil("fd started", () => started().length === 1);
    const newer = search.search({ cwd: folders[0]!, query: "late", searchId: "picker" }, never);
    assert.deepEqual(await older, { files: [], truncated: false });
    assert.equal(isAlive(started()[0]!), true);
    open();
    const answer = await newer;
    assert.deepEqual(
      answer.files.map((f) => f.path),
      ["late.txt"],
    );
    assert.equal(started().length, 1);
    const other = await search.search({ cwd: folders[0]!, query: "late", searchId: "other" }, never);
    assert.equal(other.files.length, 1);
  });

  test("superseded by a search of another folder, the older listing's process is killed", async () => {
    const { search, started } = service("hang");
    const older = search.search({ cwd: folders[0]!, query: "a", searchId: "picker" }, never);
    await waitUntil("fd started", () => started().length === 1);
    const newer = assert.rejects(
      search.search({ cwd: folders[1]!, query: "a", searchId: "picker" }, never),
      (error: { code?: string }) => error.code === "shuttingDown",
    );
    assert.deepEqual(await older, { files: [], truncated: false });
    await waitUntil("the first fd killed", () => !isAlive(started()[0]!));
    await search.close();
    await newer;
  });

  test("shutdown answers shuttingDown to every waiting search and to any later one, and leaves no fd running", async () => {
    const { search, started } = service("hang");
    const waiting = assert.rejects(
      search.search({ cwd: folders[0]!, query: "a", searchId: "s" }, never),
      (error: { code?: string }) => error.code === "shuttingDown",
    );
    await waitUntil("fd started", () => started().length === 1);
    const closing = search.close();
    const late = assert.rejects(
      search.search({ cwd: folders[0]!, query: "a", searchId: "s" }, never),
      (error: { code?: string }) => error.code === "shuttingDown",
    );
    await Promise.all([waiting, late]);
    await closing;
    assert.equal(isAlive(started()[0]!), false);
  });

  test("toolMissing without fd or fdfind on PATH; invalidParams for a cwd that is not an existing absolute directory", async () => {
    const empty = join(root, `case${++case_}`);
    mkdirSync(empty);
    const search = new FileSearch({ env: () => ({}), pathEnv: () => ({ PATH: empty }) });
    await assert.rejects(search.search({ cwd: folders[0]!, query: "a" }, never), (error: { code?: string }) => error.code === "toolMissing");
    writeFileSync(join(empty, "file.txt"), "");
    for (const cwd of ["relative/dir", join(empty, "missing"), join(empty, "file.txt")]) {
      await assert.rejects(search.search({ cwd, query: "a" }, never), (error: { code?: string }) => error.code === "invalidParams", cwd);
    }
  });
});
