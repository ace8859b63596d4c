import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { serializeHeader, toHeader, type SessionHeader } from "../../src/session/format.js";
import { forkSession } from "../../src/session/fork.js";
import { readSession } from "../../src/session/read.js";
import { SessionFile } from "../../src/session/session-file.js";
import { tempDir, userText } from "./helpers.js";

const dir = tempDir("parent");
const PARENT = "0b8f6c8e-1f5e-4b7e-9a53-5b2a6f0c9d11";

const base = { type: "session", version: 1, id: "6f9619ff-8b86-4d11-b42d-00c04fc964ff", cwd: "/p", createdAt: "2025-01-01T00:00:00.000Z" } as const;

describe("a sub-agent's header", () => {
  test("round-trips with and without the parent fields, written after forkedFromId", () => {
    const plain: SessionHeader = { ...base };
    assert.deepEqual(toHeader(JSON.parse(serializeHeader(plain))), plain);
    assert.equal(serializeHeader(plain).includes("parent"), false);

    const child: SessionHeader = { ...base, parentCallId: "call_7", parentThreadId: PARENT, forkedFromId: "f" };
    const line = serializeHeader(child);
    assert.deepEqual(Object.keys(JSON.parse(line) as object), ["type", "version", "id", "cwd", "createdAt", "forkedFromId", "parentThreadId", "parentCallId"]);
    assert.deepEqual(toHeader(JSON.parse(line)), child);

    const noCall: SessionHeader = { ...base, parentThreadId: PARENT };
    assert.deepEqual(toHeader(JSON.parse(serializeHeader(noCall))), noCall);
    assert.deepEqual(toHeader({ ...base, parentThreadId: "x".repeat(256), parentCallId: "y".repeat(256) }), {
      ...base,
      parentThreadId: "x".repeat(256),
      parentCallId: "y".repeat(256),
    });
  });

  test("a header with a parent field that is not a 1..256 character string, or a call id alone, is not a header", () => {
    for (const bad of [
      { parentThreadId: 7 },
      { parentThreadId: null },
      { parentThreadId: "" },
      { parentThreadId: "x".repeat(257) },
      { parentThreadId: PARENT, parentCallId: 7 },
      { parentThreadId: PARENT, parentCallId: "" },
      { parentThreadId: PARENT, parentCallId: "y".repeat(257) },
      { parentCallId: "call_7" },
    ]) {
      assert.equal(toHeader({ ...base, ...bad }), undefined, JSON.stringify(bad));
    }
  });

  test("SessionFile.create writes the parent fields; it refuses values its reader would refuse", async () => {
    const child = await SessionFile.create({ dir, cwd: "/p", parentThreadId: PARENT, parentCallId: "call_1" });
    child.append({ type: "message", message: userText("the task") });
    child.close();
    const firstLine = JSON.parse(readFileSync(child.path, "utf8").split("\n")[0]!) as SessionHeader;
    assert.equal(firstLine.parentThreadId, PARENT);
    assert.equal(firstLine.parentCallId, "call_1");
    const reopened = await SessionFile.open(child.path);
    assert.equal(reopened.header.parentThreadId, PARENT);
    assert.equal(reopened.header.parentCallId, "call_1");
    reopened.close();

    await assert.rejects(SessionFile.create({ dir, cwd: "/p", parentCallId: "call_1" }), TypeError);
    await assert.rejects(SessionFile.create({ dir, cwd: "/p", parentThreadId: "" }), TypeError);
  });

  test("a fork of a child is a new top-level thread: no parent fields", async () => {
    const child = await SessionFile.create({ dir, cwd: "/p", parentThreadId: PARENT, parentCallId: "call_2" });
    child.append({ type: "message", message: userText("the task") });
    child.close();
    const fork = await forkSession({ source: child.path, dir });
    assert.equal(fork.header.forkedFromId, child.header.id);
    assert.equal(fork.header.parentThreadId, undefined);
    assert.equal(fork.header.parentCallId, undefined);
    const read = await readSession(fork.path);
    assert.equal("parentThreadId" in read.header, false);
    assert.equal("parentCallId" in read.header, false);
  });
});
