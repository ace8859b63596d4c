import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { serializeEntry, serializeHeader, type SessionEntry } from "../../src/session/format.js";
import { forkSession } from "../../src/session/fork.js";
import { readSession } from "../../src/session/read.js";
import { SessionFile } from "../../src/session/session-file.js";
import { rejectsWithCode, startWorker, tempDir, userText } from "./helpers.js";

const dir = tempDir("fork");

describe("forkSession", () => {
  test("copies the branch prefix with the same entry ids and names its source; the source is untouched", async () => {
    const source = await SessionFile.create({ dir, cwd: "/project" });
    const start = source.append({ type: "turn_start" });
    const ask = source.append({ type: "message", message: userText("question") });
    source.append({ type: "turn_end", turnId: start.id, status: "completed" });
    source.setLeaf(ask.id);
    const side = source.append({ type: "message", message: userText("other branch") });
    source.close();
    const before = readFileSync(source.path);
    const mtime = statSync(source.path).mtimeMs;

    const upToAsk = await forkSession({ source: source.path, upToEntryId: ask.id, dir: join(dir, "forks") });
    assert.equal(upToAsk.header.forkedFromId, source.header.id);
    assert.notEqual(upToAsk.header.id, source.header.id);
    assert.equal(upToAsk.header.cwd, "/project");
    assert.equal(upToAsk.entries, 2);
    const copy = await readSession(upToAsk.path);
    assert.deepEqual(copy.header, upToAsk.header);
    assert.deepEqual(copy.entries, [start, ask]);

    const atLeaf = await forkSession({ source: source.path, dir, cwd: "/worktree" });
    assert.deepEqual((await readSession(atLeaf.path)).entries, [start, ask, side]);
    assert.equal(atLeaf.header.cwd, "/worktree");

    assert.deepEqual(readFileSync(source.path), before);
    assert.equal(statSync(source.path).mtimeMs, mtime);
    const owner = await SessionFile.open(upToAsk.path);
    owner.append({ type: "message", message: userText("continuing the fork") });
    owner.close();
    await rejectsWithCode(forkSession({ source: source.path, upToEntryId: "missing", dir }), "notFound");
  });

  test("forks a transcript another process owns, without its lock", async () => {
    const source = await SessionFile.create({ dir, cwd: "/p" });
    source.append({ type: "message", message: userText("owned elsewhere") });
    source.close();
    const worker = startWorker(["hold", source.path]);
    await worker.waitFor((line) => line === "held");
    const fork = await forkSession({ source: source.path, dir });
    assert.equal((await readSession(fork.path)).entries.length, 1);
    worker.child.kill("SIGKILL");
    await worker.exited;
  });

  test("an unreadable entry in the branch is left out and the copy stays one chain", async () => {
    const entries: SessionEntry[] = ["a", "b", "c"].map((id, i) => ({
      type: "message",
      id,
      parentId: i === 0 ? null : "abc"[i - 1]!,
      timestamp: 1,
      message: userText(id),
    }));
    const lines = entries.map((e) => serializeEntry(e));
    lines[1] = lines[1]!.replace('"message":{', '"message":{broken');
    const path = join(dir, "damaged.jsonl");
    const header = { type: "session", version: 1, id: "11111111-1111-4111-8111-111111111111", cwd: "/p", createdAt: "2025-01-01T00:00:00.000Z" } as const;
    writeFileSync(path, [serializeHeader(header), ...lines].join("\n") + "\n");
    const fork = await forkSession({ source: path, dir });
    assert.deepEqual(
      fork.issues.map((i) => [i.kind, i.entryId]),
      [["corrupt", "b"]],
    );
    const copy = await readSession(fork.path);
    assert.deepEqual(copy.issues, []);
    assert.deepEqual(
      copy.entries.map((e) => [e.id, e.parentId]),
      [
        ["a", null],
        ["c", "a"],
      ],
    );
  });
});
