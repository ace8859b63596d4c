import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, type TestServer } from "../support/harness.js";
import { lines, makeRepo } from "./diffs-support.js";

/**
 * issue 29: a file an editor saves after turn/started belongs to the turn,
 * even when it lands while the snapshot before the turn is still being
 * taken. The server runs the system git through a wrapper that holds
 * every `git add --update` (the snapshot's first read of the working
 * tree) until the test has saved the file, so the race is certain.
 */

let model: ScriptedModelServer;
let server: TestServer;
let wrapperDir: string;
let gate: string;

before(async () => {
  wrapperDir = mkdtempSync(join(tmpdir(), "kc-git-gate-"));
  gate = join(wrapperDir, "open");
  const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const wrapper = join(wrapperDir, "git");
  writeFileSync(wrapper, `#!/bin/sh\ncase " $* " in *" add --update "*) while [ ! -e '${gate}' ]; do sleep 0.01; done;; esac\nexec '${realGit}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  model = await ScriptedModelServer.start();
  server = await startServer({ model, env: { PATH: `${wrapperDir}:${process.env.PATH ?? ""}` } });
});

after(async () => {
  writeFileSync(gate, "");
  await server.close();
  await model.close();
  rmSync(wrapperDir, { recursive: true, force: true });
});

test("an editor's save while the model's first request is on its way is in turn/diff/updated and Turn.files", async () => {
  const repo = makeRepo(server, { "a.txt": lines(3), "b.txt": lines(2) });
  repo.write("b.txt", "edited before the turn\n");
  // Saved a minute before the turn, as a person's earlier edit is: not the turn's.
  const minuteAgo = new Date(Date.now() - 60_000);
  utimesSync(join(repo.root, "b.txt"), minuteAgo, minuteAgo);
  const { thread } = await server.main.request("thread/start", { cwd: repo.root, approvalMode: "fullAccess" });
  let releaseModel!: () => void;
  model.enqueue({ text: "done", pauseAfter: 0, gate: new Promise<void>((resolve) => (releaseModel = resolve)) });
  const mark = server.main.notifications.length;
  await server.main.request("turn/start", { threadId: thread.id, text: "go" });
  await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark });
  await model.waitForRequests(1);
  assert.equal(existsSync(gate), false, "the snapshot is still held");

  repo.write("a.txt", `${lines(3)}saved by an editor\n`);
  writeFileSync(gate, "");
  releaseModel();

  const completed = await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
  const updated = await server.main.waitForNotification("turn/diff/updated", (p) => p.threadId === thread.id, { since: mark });
  assert.equal(updated.turnId, completed.turn.id);
  assert.deepEqual(updated.files, [{ path: "a.txt", additions: 1, deletions: 0 }], "the save is the turn's; the edit before the turn is not");
  const lastTurn = await server.main.request("thread/diff/read", { threadId: thread.id, scope: "lastTurn" });
  assert.deepEqual(
    lastTurn.files.map((f) => f.path),
    ["a.txt"],
  );
  assert.equal(repo.git("status", "--porcelain").trim(), "M a.txt\n M b.txt".trim(), "the index was not touched");
});
