import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { INDEX_FILE } from "../../src/listing/index-file.js";
import type { StoredThreadSummary } from "../../src/listing/types.js";
import { serializeEntry } from "../../src/session/format.js";
import { newListing, tempDir, writeTranscript } from "./helpers.js";

const worker = fileURLToPath(new URL("./listing-worker.js", import.meta.url));

function runWorker(dir: string, rounds: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, dir, String(rounds)], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 && output === "done\n" ? resolve() : reject(new Error(`worker exited ${code}: ${output}`))));
  });
}

const view = (threads: StoredThreadSummary[]) => threads.map((t) => `${t.id} ${t.title} ${t.updatedAt}`).sort();

describe("thread/list: engines sharing a folder", () => {
  test("listings in three processes and two engines, while transcripts change, never corrupt the index", async () => {
    const dir = tempDir("concurrent");
    const made = Array.from({ length: 40 }, (_, i) => writeTranscript(dir, { firstUser: `thread ${i}` }));
    const workers = [runWorker(dir, 40), runWorker(dir, 40)];
    const here = [newListing(), newListing()];
    let done = false;
    void Promise.all(workers)
      .finally(() => (done = true))
      .catch(() => undefined);
    for (let round = 0; !done || round < 20; round++) {
      const target = made[round % made.length]!;
      appendFileSync(target.path, serializeEntry({ type: "thread_name", id: `r${round}`, parentId: null, timestamp: 1, name: `round ${round}` }) + "\n");
      if (round % 5 === 0) made.push(writeTranscript(dir, { firstUser: `added in round ${round}` }));
      await Promise.all(here.map((listing) => listing.list({ folders: [dir] })));
      // Each rename replaces the file whole: whatever moment it is read at, it parses.
      if (existsSync(join(dir, INDEX_FILE))) JSON.parse(readFileSync(join(dir, INDEX_FILE), "utf8"));
    }
    await Promise.all(workers);
    await Promise.all(here.map((listing) => listing.flush()));
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.endsWith(".tmp")),
      [],
    );
    const cached = (await newListing().list({ folders: [dir], limit: 200 })).threads;
    rmSync(join(dir, INDEX_FILE));
    const fresh = (await newListing().list({ folders: [dir], limit: 200 })).threads;
    assert.equal(fresh.length, made.length);
    assert.deepEqual(view(cached), view(fresh));
  });
});
