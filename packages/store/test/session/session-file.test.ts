import assert from "node:assert/strict";
import { appendFileSync, existsSync, linkSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { currentProcess } from "@knightcode/system/fs/process-identity";
import { readSession } from "../../src/session/read.js";
import { SessionFile } from "../../src/session/session-file.js";
import { rejectsWithCode, tempDir, userText } from "./helpers.js";

const dir = tempDir("session-file");

const say = (text: string) => ({ type: "message", message: userText(text) }) as const;
const texts = (file: { branch(): readonly unknown[] }) =>
  file.branch().map((e) => ((e as { message?: { content?: unknown } }).message?.content ?? (e as { type: string }).type) as string);

describe("SessionFile", () => {
  test("create writes the header durably; a thread without entries can be reopened", async () => {
    const nested = join(dir, "new", "nested");
    const now = () => Date.UTC(2025, 0, 2, 3, 4, 5, 6);
    const file = await SessionFile.create({ dir: nested, cwd: "/project", now });
    assert.match(file.path, /2025-01-02T03-04-05-006Z_[0-9a-f-]{36}\.jsonl$/);
    assert.deepEqual(file.header, { type: "session", version: 1, id: file.header.id, cwd: "/project", createdAt: "2025-01-02T03:04:05.006Z" });
    assert.equal(file.leafId, null);
    assert.equal(statSync(file.path).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(nested).sort(), [`${file.path.split("/").at(-1)}`, `${file.path.split("/").at(-1)}.lock`]);
    file.close();
    file.close();
    const again = await SessionFile.open(file.path);
    assert.deepEqual(again.header, file.header);
    assert.deepEqual(again.branch(), []);
    again.close();
    await rejectsWithCode(SessionFile.create({ dir: nested, cwd: "/p", id: file.header.id, now }), "alreadyExists");
    await assert.rejects(SessionFile.create({ dir: nested, cwd: "/p", id: "../../escape" }), TypeError);
  });

  test("tells its observer after creating the file and after each append; an observer that throws fails no write", async () => {
    const seen: string[] = [];
    const file = await SessionFile.create({ dir, cwd: "/p", onWritten: (path) => seen.push(path) });
    assert.deepEqual(seen, [file.path]);
    file.append(say("one"));
    file.append({ type: "thread_name", name: "named" });
    assert.deepEqual(seen, [file.path, file.path, file.path]);
    file.close();
    const reopened = await SessionFile.open(file.path, {
      onWritten: () => {
        throw new Error("observer failed");
      },
    });
    const two = reopened.append(say("two"));
    reopened.close();
    assert.equal((await readSession(file.path)).entries.at(-1)?.id, two.id);
  });

  test("branch, leaf and setLeaf", async () => {
    const file = await SessionFile.create({ dir, cwd: "/p" });
    assert.equal(file.isOwned(), true);
    const a1 = file.append(say("a1"));
    const a2 = file.append(say("a2"));
    const a3 = file.append(say("a3"));
    assert.equal(a2.parentId, a1.id);
    file.setLeaf(a1.id);
    assert.deepEqual(texts(file), ["a1"]);
    const b2 = file.append(say("b2"));
    assert.equal(b2.parentId, a1.id);
    assert.deepEqual(texts(file), ["a1", "b2"]);
    file.close();

    const owner = await SessionFile.open(file.path);
    assert.equal(owner.leafId, b2.id, "on disk the leaf is the last entry");
    assert.deepEqual(texts(owner), ["a1", "b2"]);
    owner.setLeaf(a3.id);
    assert.deepEqual(texts(owner), ["a1", "a2", "a3"]);
    owner.append(say("a4"));
    assert.deepEqual(texts(owner), ["a1", "a2", "a3", "a4"]);
    owner.setLeaf(null);
    const root = owner.append(say("r"));
    assert.equal(root.parentId, null);
    assert.deepEqual(texts(owner), ["r"]);
    assert.throws(
      () => owner.setLeaf("nope"),
      (e: Error & { code?: string }) => e.code === "notFound",
    );
    assert.equal(owner.refs().length, 6);
    assert.equal(owner.entryRef(a2.id)?.type, "message");
    assert.deepEqual(owner.read([owner.entryRef(a2.id)!]).entries, [a2]);
    owner.close();
    assert.throws(
      () => owner.append(say("late")),
      (e: Error & { code?: string }) => e.code === "closed",
    );
    assert.deepEqual(
      (await readSession(file.path)).entries.map((e) => e.id),
      [root.id],
    );
  });

  test("a torn tail is moved aside, not destroyed, before the next append", async () => {
    const file = await SessionFile.create({ dir, cwd: "/p" });
    file.append(say("kept"));
    file.close();
    const torn = '{"type":"message","id":"0123456789ab","parentId":null,"timestamp":1,"message":{"role":"user","content":"half a rep';
    appendFileSync(file.path, torn);
    const owner = await SessionFile.open(file.path);
    assert.deepEqual(
      owner.issues.map((i) => i.kind),
      ["torn"],
    );
    assert.equal(readFileSync(file.path, "utf8").endsWith(torn), true, "opening alone changes nothing");
    owner.append(say("next"));
    const moved = owner.issues.find((i) => i.kind === "tornMovedAside");
    assert.ok(moved?.movedTo);
    assert.equal(readFileSync(moved.movedTo, "utf8"), torn);
    owner.close();
    const read = await readSession(file.path);
    assert.deepEqual(read.issues, []);
    assert.deepEqual(
      read.entries.map((e) => (e as { message: { content: string } }).message.content),
      ["kept", "next"],
    );
  });

  test("a second owner is refused, in this process and through a symlink alias; readers need no lock", async () => {
    const file = await SessionFile.create({ dir, cwd: "/p" });
    file.append(say("mine"));
    const error = await rejectsWithCode(SessionFile.open(file.path), "lockedElsewhere");
    assert.equal(error.holder?.pid, process.pid);
    const alias = join(dir, "alias.jsonl");
    symlinkSync(file.path, alias);
    await rejectsWithCode(SessionFile.open(alias), "lockedElsewhere");
    assert.equal((await readSession(alias)).entries.length, 1);
    file.close();
    const viaAlias = await SessionFile.open(alias);
    assert.equal(viaAlias.realPath, file.path);
    await rejectsWithCode(SessionFile.open(file.path), "lockedElsewhere");
    viaAlias.close();
  });

  test("a hard-linked transcript is refused", async () => {
    const file = await SessionFile.create({ dir, cwd: "/p" });
    file.close();
    const twin = join(dir, "twin.jsonl");
    linkSync(file.path, twin);
    await rejectsWithCode(SessionFile.open(file.path), "hardLinked");
    await rejectsWithCode(SessionFile.open(twin), "hardLinked");
    rmSync(twin);
    (await SessionFile.open(file.path)).close();
  });

  test("a deleted or replaced lock stops writes with ownershipLost", async () => {
    for (const takeAway of ["delete", "replace"] as const) {
      const file = await SessionFile.create({ dir, cwd: "/p" });
      file.append(say("before"));
      const lockPath = `${file.realPath}.lock`;
      if (takeAway === "delete") rmSync(lockPath);
      else writeFileSync(lockPath, JSON.stringify({ ...currentProcess(), token: "someone-else", acquiredAt: 0 }));
      assert.equal(file.isOwned(), false);
      const size = statSync(file.path).size;
      await rejectsWithCode(() => file.append({ type: "turn_end", turnId: "t", status: "completed" }), "ownershipLost");
      await rejectsWithCode(() => file.append(say("after")), "ownershipLost");
      assert.equal(statSync(file.path).size, size, "nothing was written");
      file.close();
      assert.equal(existsSync(lockPath), takeAway === "replace", "close never removes a lock it does not own");
    }
  });

  test("a replaced file, or a foreign writer, stops writes with ownershipLost", async () => {
    const replaced = await SessionFile.create({ dir, cwd: "/p" });
    const impostor = join(dir, "impostor.jsonl");
    writeFileSync(impostor, readFileSync(replaced.path));
    renameSync(impostor, replaced.path);
    await rejectsWithCode(() => replaced.append(say("x"), { durable: true }), "ownershipLost");
    replaced.close();

    const shared = await SessionFile.create({ dir, cwd: "/p", ownershipCheckMs: 60_000 });
    appendFileSync(shared.path, '{"type":"turn_start","id":"foreign","parentId":null,"timestamp":1}\n');
    await rejectsWithCode(() => shared.append(say("x")), "ownershipLost");
    shared.close();
  });
});
