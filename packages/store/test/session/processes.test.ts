import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { readSession } from "../../src/session/read.js";
import { SessionFile } from "../../src/session/session-file.js";
import { mulberry32, rejectsWithCode, startWorker, tempDir, userText } from "./helpers.js";

const dir = tempDir("session-proc");

async function newTranscript(): Promise<string> {
  const file = await SessionFile.create({ dir, cwd: "/p" });
  file.append({ type: "message", message: userText("first") });
  file.close();
  return file.path;
}

function hasPrlimit(): boolean {
  try {
    execFileSync("prlimit", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("SessionFile across processes", () => {
  test("another process's ownership is refused, directly and via a symlink; its death frees the file", async () => {
    const path = await newTranscript();
    const alias = join(dir, "alias-proc.jsonl");
    symlinkSync(path, alias);
    const worker = startWorker(["hold", path]);
    await worker.waitFor((line) => line === "held");
    const direct = await rejectsWithCode(SessionFile.open(path), "lockedElsewhere");
    assert.equal(direct.holder?.pid, worker.child.pid);
    const aliased = await rejectsWithCode(SessionFile.open(alias), "lockedElsewhere");
    assert.equal(aliased.holder?.pid, worker.child.pid);
    worker.child.kill("SIGKILL");
    await worker.exited;
    const owner = await SessionFile.open(alias);
    owner.append({ type: "turn_start" });
    owner.close();
  });

  test("kill -9 mid-append: everything up to the last fsync survives in order, and a new owner carries on", async () => {
    const random = mulberry32(20_250_101);
    for (let round = 0; round < 6; round++) {
      const path = await newTranscript();
      const worker = startWorker(["append", path, String(round + 1)]);
      await worker.waitFor((line) => line.startsWith("synced "));
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 300)));
      worker.child.kill("SIGKILL");
      const { signal } = await worker.exited;
      assert.equal(signal, "SIGKILL");
      const synced = Math.max(...worker.lines.filter((l) => l.startsWith("synced ")).map((l) => Number(l.slice(7))));

      const read = await readSession(path);
      const numbers = read.entries.slice(1).map((e) => Number(/^entry (\d+) /.exec((e as { message: { content: string } }).message.content)![1]));
      assert.deepEqual(
        numbers,
        numbers.map((_, i) => i),
        `round ${round}: entries in order without gaps`,
      );
      assert.ok(numbers.length > synced, `round ${round}: ${numbers.length} entries, last fsynced ${synced}`);
      assert.ok(
        read.issues.every((i) => i.kind === "torn"),
        JSON.stringify(read.issues),
      );

      const owner = await SessionFile.open(path);
      const last = owner.append({ type: "turn_start" }, { durable: true });
      owner.close();
      const after = await readSession(path);
      assert.deepEqual(after.issues, []);
      assert.equal(after.entries.length, read.entries.length + 1);
      assert.equal(after.leafId, last.id);
    }
  });

  test("a write the kernel cuts short (RLIMIT_FSIZE) is rolled back: no partial line stays", { skip: !hasPrlimit() && "needs prlimit" }, async () => {
    const path = await newTranscript();
    const start = statSync(path).size;
    const worker = startWorker(["fill", path, "3000"], ["prlimit", `--fsize=${start + 10_000}`]);
    const result = JSON.parse(await worker.waitFor((line) => line.startsWith("{"))) as { appended: number; codes: string[]; sizes: number[] };
    await worker.exited;
    assert.equal(result.appended, 3);
    assert.deepEqual(result.codes, ["writeFailed", "writeFailed"]);
    const text = readFileSync(path, "utf8");
    assert.deepEqual(result.sizes, [Buffer.byteLength(text), Buffer.byteLength(text)], "both failures left the file at its last whole line");
    assert.ok(text.endsWith("}\n"));
    const read = await readSession(path);
    assert.deepEqual(read.issues, []);
    assert.equal(read.entries.length, 4);
    const owner = await SessionFile.open(path);
    owner.append({ type: "message", message: userText("y".repeat(3000)) });
    owner.close();
    assert.equal((await readSession(path)).entries.length, 5);
  });
});
