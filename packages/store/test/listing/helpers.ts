import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { after } from "node:test";
import { open, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { ListingError, type ListingErrorCode } from "../../src/listing/errors.js";
import { ThreadListing } from "../../src/listing/thread-listing.js";
import type { ThreadListingOptions } from "../../src/listing/types.js";
import { serializeEntry, serializeHeader, type SessionEntry, type SessionHeader } from "../../src/session/format.js";
import { sessionFileName } from "../../src/session/paths.js";
import { assistantText, userText } from "../session/helpers.js";

const engines = new Set<ThreadListing>();

/** A listing engine whose background index writes are waited for before the test's folders go. */
export function newListing(options: ThreadListingOptions = {}): ThreadListing {
  const listing = new ThreadListing(options);
  engines.add(listing);
  return listing;
}

/** A temporary folder removed when the test ends, once no engine is still writing an index into it. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `kc-${prefix}-`));
  after(async () => {
    await Promise.all([...engines].map((listing) => listing.flush()));
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

export interface TranscriptSpec {
  id?: string;
  cwd?: string;
  createdAt?: string;
  forkedFromId?: string;
  parentThreadId?: string;
  parentCallId?: string;
  /** The first user message; none when undefined. */
  firstUser?: string;
  /** thread_name entries, in order, each after a turn. */
  names?: string[];
  /** Turns after the first (a user message and a reply each). */
  turns?: number;
  /** Modification time, Unix ms. */
  mtimeMs?: number;
  /** Lines added after the entries, as they are (damage, other layouts). */
  extraLines?: string[];
}

let entryCounter = 0;

function entry(fields: Record<string, unknown> & { type: string }, parentId: string | null): SessionEntry {
  return { id: `e${(entryCounter++).toString(16).padStart(11, "0")}`, parentId, timestamp: 1_700_000_000_000, ...fields } as SessionEntry;
}

/** The lines of a transcript: header, model choice, then turns, with names between them. */
export function transcriptLines(spec: TranscriptSpec): string[] {
  const header: SessionHeader = {
    type: "session",
    version: 1,
    id: spec.id ?? randomUUID(),
    cwd: spec.cwd ?? "/work/project",
    createdAt: spec.createdAt ?? "2025-01-01T00:00:00.000Z",
    ...(spec.forkedFromId === undefined ? {} : { forkedFromId: spec.forkedFromId }),
    ...(spec.parentThreadId === undefined ? {} : { parentThreadId: spec.parentThreadId }),
    ...(spec.parentCallId === undefined ? {} : { parentCallId: spec.parentCallId }),
  };
  const entries: SessionEntry[] = [];
  const add = (fields: Record<string, unknown> & { type: string }) => entries.push(entry(fields, entries.at(-1)?.id ?? null));
  add({ type: "model_change", provider: "local", modelId: "m" });
  const names = [...(spec.names ?? [])];
  const turn = (text: string) => {
    add({ type: "turn_start" });
    add({ type: "message", message: userText(text) });
    add({ type: "message", message: assistantText(`reply to ${text.slice(0, 20)}`) });
    add({ type: "turn_end", turnId: entries.at(-3)!.id, status: "completed" });
    const name = names.shift();
    if (name !== undefined) add({ type: "thread_name", name });
  };
  if (spec.firstUser !== undefined) turn(spec.firstUser);
  for (let i = 0; i < (spec.turns ?? 0); i++) turn(`follow-up ${i}`);
  for (const name of names) add({ type: "thread_name", name });
  return [serializeHeader(header), ...entries.map(serializeEntry), ...(spec.extraLines ?? [])];
}

/** Writes a transcript under its usual name; answers its path and id. */
export function writeTranscript(dir: string, spec: TranscriptSpec = {}): { path: string; id: string } {
  const id = spec.id ?? randomUUID();
  mkdirSync(dir, { recursive: true });
  const path = join(dir, sessionFileName(spec.createdAt ?? "2025-01-01T00:00:00.000Z", id));
  writeFileSync(path, transcriptLines({ ...spec, id }).join("\n") + "\n");
  if (spec.mtimeMs !== undefined) setMtime(path, spec.mtimeMs);
  return { path, id };
}

export function setMtime(path: string, ms: number): void {
  utimesSync(path, new Date(ms), new Date(ms));
}

/** An open function that records what it opened and how many handles were open at once. */
export function countingOpen(options: { delayMs?: number } = {}) {
  const state = { opened: [] as string[], current: 0, peak: 0 };
  const openTranscript = async (path: string): Promise<FileHandle> => {
    state.opened.push(path);
    state.current++;
    state.peak = Math.max(state.peak, state.current);
    try {
      const handle = await open(path, "r");
      const close = handle.close.bind(handle);
      handle.close = async () => {
        // Held a little, so that concurrent scans overlap and the peak means something.
        if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
        state.current--;
        return close();
      };
      return handle;
    } catch (error) {
      state.current--;
      throw error;
    }
  };
  return { openTranscript, state };
}

export async function rejectsWithListingCode(promise: Promise<unknown>, code: ListingErrorCode): Promise<ListingError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ListingError, `expected ListingError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  return caught;
}

/** One line of an index shard as a test reads it. */
export interface ShardLine {
  name: string;
  size: string;
  mtimeMs: string;
  ino: string;
  /** The facts' JSON text; "" for a file that is not a transcript. */
  facts: string;
}

/** A folder's index as files: the top file's shard count, and each shard's header and lines. */
export function readIndexFiles(dir: string): { shards: number; files: Array<{ file: string; header: string; lines: ShardLine[] }> } {
  const top = JSON.parse(readFileSync(join(dir, ".thread-index.json"), "utf8")) as { version: number; shards: number };
  assert.equal(top.version, 4);
  const files = Array.from({ length: top.shards }, (_, at) => {
    const file = join(dir, `.thread-index-${top.shards}-${at}.tsv`);
    const [header, ...rest] = readFileSync(file, "latin1").split("\n");
    assert.equal(rest.pop(), "", "a shard ends with a newline");
    const lines = rest.map((line) => {
      const [name, size, mtimeMs, ino, facts] = line.split("\t") as [string, string, string, string, string];
      return { name, size, mtimeMs, ino, facts };
    });
    return { file, header: header!, lines };
  });
  return { shards: top.shards, files };
}

/** Writes shard `file` back with its header and lines. */
export function writeShard(file: string, header: string, lines: readonly ShardLine[]): void {
  writeFileSync(file, [header, ...lines.map((l) => [l.name, l.size, l.mtimeMs, l.ino, l.facts].join("\t"))].join("\n") + "\n");
}

/** Every name the index holds, sorted. */
export function indexedNames(dir: string): string[] {
  return readIndexFiles(dir)
    .files.flatMap((shard) => shard.lines.map((line) => line.name))
    .sort();
}
