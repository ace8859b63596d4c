import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { readSettings } from "../../src/settings/read.js";
import { SettingsStore } from "../../src/settings/store.js";
import { writeSetting } from "../../src/settings/write.js";
import { layout, tempRoot } from "@knightcode/repo/test/settings/fixtures";

const fresh = tempRoot("settings-race");
const worker = fileURLToPath(new URL("./settings-worker.js", import.meta.url));

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on("exit", (code) => resolve(code)));
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      if (buffer.includes("\n")) resolve(buffer.slice(0, buffer.indexOf("\n")));
    });
    child.on("exit", () => reject(new Error(`child exited before printing a line: ${buffer}`)));
  });
}

/** A reader in another process, polling the file while the writers run. */
async function startPoller(file: string): Promise<() => Promise<{ reads: number; torn: string[] }>> {
  const child = spawn(process.execPath, [worker, "poll", file], { stdio: ["pipe", "pipe", "inherit"] });
  await firstLine(child);
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  return async () => {
    child.stdin.end();
    await exited(child);
    return JSON.parse(out.trim()) as { reads: number; torn: string[] };
  };
}

describe("settings writes under contention", () => {
  test("50 concurrent writes of different keys from one process all land", async () => {
    const { agentDir, globalFile } = layout(fresh);
    const stopPoller = await startPoller(globalFile);
    const stores = [new SettingsStore({ agentDir }), new SettingsStore({ agentDir })];
    const writes = Array.from({ length: 50 }, (_, i) =>
      i % 3 === 0 ? writeSetting({ agentDir, scope: "global", key: `race.k${i}`, value: i }) : stores[i % 2]!.write("global", `race.k${i}`, i),
    );
    const versions = await Promise.all(writes);
    const poll = await stopPoller();
    const race = readSettings({ agentDir }).settings.race as Record<string, number>;
    assert.deepEqual(Object.keys(race).length, 50);
    for (let i = 0; i < 50; i++) assert.equal(race[`k${i}`], i);
    assert.equal(new Set(versions.map((v) => v.version)).size, 50, "every write produced its own version");
    assert.deepEqual(poll.torn, [], "no reader ever saw a partial file");
    assert.ok(JSON.parse(readFileSync(globalFile, "utf8")));
  });

  test("4 processes writing at once: every key lands and no increment is lost", async () => {
    const { agentDir, globalFile } = layout(fresh);
    const perChild = 25;
    const stopPoller = await startPoller(globalFile);
    const children = ["p0", "p1", "p2", "p3"].map((prefix) =>
      spawn(process.execPath, [worker, "write", agentDir, prefix, String(perChild)], { stdio: ["ignore", "pipe", "inherit"] }),
    );
    const codes = await Promise.all(children.map(exited));
    const poll = await stopPoller();
    assert.deepEqual(codes, [0, 0, 0, 0]);
    const settings = readSettings({ agentDir }).settings;
    assert.equal(settings.counter, 4 * perChild, "read-modify-write under the lock loses no update");
    for (const prefix of ["p0", "p1", "p2", "p3"]) {
      const keys = settings[prefix] as Record<string, number>;
      assert.equal(Object.keys(keys).length, perChild, `all of ${prefix}'s keys landed`);
      for (let i = 0; i < perChild; i++) assert.equal(keys[`k${i}`], i);
    }
    assert.ok(poll.reads > 0);
    assert.deepEqual(poll.torn, [], "no reader ever saw a partial file");
  });

  test("a writer killed mid-flight leaves a whole file and no lock that blocks the next writer", async () => {
    const { agentDir, globalFile } = layout(fresh);
    const child = spawn(process.execPath, [worker, "flood", agentDir, "100000"], { stdio: ["ignore", "pipe", "inherit"] });
    await firstLine(child);
    child.kill("SIGKILL");
    await exited(child);
    const before = readSettings({ agentDir });
    assert.deepEqual(before.errors, []);
    assert.equal(before.scopes.global.state, "loaded");
    await writeSetting({ agentDir, scope: "global", key: "after.kill", value: true, expectedVersion: before.versions.global });
    const after = JSON.parse(readFileSync(globalFile, "utf8")) as { after: { kill: boolean }; flood: object };
    assert.equal(after.after.kill, true);
    assert.deepEqual(after.flood, (before.settings as { flood: object }).flood, "the killed writer's last whole write is kept");
  });
});
