import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, test } from "node:test";
import { createBashTool } from "../../src/tools/bash.js";
import { ProcessGroups, type SignalGroup } from "@knightcode/system/process/groups";
import { waitUntil } from "@knightcode/testkit";
import { assertGone, isGone, killAfter, ManualTimers } from "@knightcode/system/test/tools/processes";
import { rejectsWith, tempDir, textOf } from "../tools/support.js";

const firstNumber = (text: string): number => Number(/\d+/.exec(text)![0]);

/** Process groups that exist only in the test: `alive` says which, `calls` records every signal and probe. */
function pretendGroups() {
  const alive = new Set<number>();
  const calls: [number, NodeJS.Signals | 0][] = [];
  const signal: SignalGroup = (pgid, sig) => {
    calls.push([pgid, sig]);
    if (!alive.has(pgid)) throw Object.assign(new Error(`kill(-${pgid}): ESRCH`), { code: "ESRCH" });
  };
  return { alive, calls, signal };
}

/** Lets settled promises run their callbacks. */
const microtasks = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("ProcessGroups, on pretend groups and a manual clock", () => {
  test("a group gone after SIGTERM gets no SIGKILL, and its pgid is never signalled again, even once reused", async () => {
    const world = pretendGroups();
    const timers = new ManualTimers();
    const owner = new ProcessGroups({ killGraceMs: 1000, pollMs: 10, timers, signal: world.signal });
    world.alive.add(101);
    const group = owner.add(101);
    let disposed = false;
    void owner.dispose().then(() => (disposed = true));
    assert.deepEqual(world.calls, [[101, "SIGTERM"]]);
    timers.advance(10);
    assert.deepEqual(world.calls.at(-1), [101, 0], "the stopping group is polled");
    world.alive.delete(101);
    timers.advance(10);
    await microtasks();
    assert.equal(disposed, true, "dispose resolves once the group is seen gone");
    assert.equal(timers.pending, 0, "the SIGKILL timer and the poll are cleared");
    assert.equal(owner.size, 0);
    assert.equal(group.gone, true);
    const seen = world.calls.length;
    world.alive.add(101);
    timers.advance(60_000);
    await group.stop(0);
    await owner.killAll();
    assert.equal(group.isAlive(), false);
    assert.equal(world.calls.length, seen, "nothing was sent to the reused pgid");
  });

  test("a group still alive when the grace ends gets SIGKILL; stop resolves when it is gone", async () => {
    const world = pretendGroups();
    const timers = new ManualTimers();
    const owner = new ProcessGroups({ killGraceMs: 1000, pollMs: 10, timers, signal: world.signal });
    world.alive.add(202);
    owner.add(202);
    let disposed = false;
    void owner.dispose().then(() => (disposed = true));
    timers.advance(990);
    assert.ok(!world.calls.some(([, sig]) => sig === "SIGKILL"));
    timers.advance(10);
    assert.deepEqual(
      world.calls.filter(([, sig]) => sig !== 0),
      [
        [202, "SIGTERM"],
        [202, "SIGKILL"],
      ],
    );
    world.alive.delete(202);
    timers.advance(10);
    await microtasks();
    assert.equal(disposed, true);
    assert.equal(timers.pending, 0);
    assert.equal(owner.size, 0);
  });

  test("a grace of 0 is SIGKILL at once; a group that never goes is given up after the settle time and stays owned", async () => {
    const world = pretendGroups();
    const timers = new ManualTimers();
    const owner = new ProcessGroups({ pollMs: 10, settleMs: 500, timers, signal: world.signal });
    world.alive.add(303);
    const group = owner.add(303);
    let stopped = false;
    void group.stop(0).then(() => (stopped = true));
    assert.deepEqual(world.calls, [[303, "SIGKILL"]]);
    timers.advance(490);
    await microtasks();
    assert.equal(stopped, false);
    timers.advance(10);
    await microtasks();
    assert.equal(stopped, true);
    assert.equal(timers.pending, 0);
    assert.equal(owner.size, 1, "still owned, for the next stop and the exit hook");
    void group.stop(0);
    assert.deepEqual(
      world.calls.filter(([, sig]) => sig !== 0),
      [
        [303, "SIGKILL"],
        [303, "SIGKILL"],
      ],
      "a later stop tries again",
    );
    world.alive.delete(303);
    timers.advance(10);
    assert.equal(owner.size, 0);
  });

  test("groups seen gone are forgotten as new ones come: a long day of commands keeps only the live ones", () => {
    const world = pretendGroups();
    const owner = new ProcessGroups({ timers: new ManualTimers(), signal: world.signal });
    world.alive.add(7);
    owner.add(7);
    for (let pgid = 1000; pgid < 11_000; pgid++) {
      world.alive.add(pgid);
      owner.add(pgid);
      world.alive.delete(pgid);
    }
    assert.equal(owner.size, 2, "the background job and the last command, not yet probed");
    owner.prune();
    assert.equal(owner.size, 1);
    world.alive.delete(7);
    owner.prune();
    assert.equal(owner.size, 0);
  });

  test("a pgid given to a new group retires the old one unseen; an owner disposed already stops what it gets", async () => {
    const world = pretendGroups();
    const timers = new ManualTimers();
    const owner = new ProcessGroups({ killGraceMs: 100, pollMs: 10, timers, signal: world.signal });
    world.alive.add(404);
    const old = owner.add(404);
    const fresh = owner.add(404);
    assert.equal(old.gone, true, "the kernel reuses a pgid only once its group is gone");
    assert.equal(fresh.gone, false);
    const before = world.calls.length;
    await old.stop(0);
    assert.equal(world.calls.length, before);
    world.alive.delete(404);
    await owner.dispose();
    world.alive.add(505);
    owner.add(505);
    assert.deepEqual(world.calls.at(-1), [505, "SIGTERM"]);
    world.alive.delete(505);
    timers.advance(10);
    assert.equal(owner.size, 0);
  });

  test("the exit hook is installed once per process, however many owners hold groups", () => {
    const world = pretendGroups();
    const first = new ProcessGroups({ timers: new ManualTimers(), signal: world.signal });
    world.alive.add(11);
    first.add(11);
    const listeners = process.listenerCount("exit");
    const owners = Array.from({ length: 50 }, (_, i) => {
      const owner = new ProcessGroups({ timers: new ManualTimers(), signal: world.signal });
      world.alive.add(100 + i);
      owner.add(100 + i);
      return owner;
    });
    assert.equal(process.listenerCount("exit"), listeners);
    world.alive.clear();
    for (const owner of [first, ...owners]) owner.prune();
  });
});

describe("ProcessGroups, on real processes", () => {
  test("a background job outlives its bash call and dies when the owner is disposed", async (t) => {
    const dir = await tempDir(t);
    const processes = new ProcessGroups({ killGraceMs: 500 });
    t.after(() => processes.dispose());
    const result = await createBashTool({ cwd: dir, processes }).execute("c", { command: "sleep 1000 > /dev/null 2>&1 & echo $!" });
    const pid = firstNumber(textOf(result));
    killAfter(t, pid);
    assert.equal(isGone(pid), false, "the call returned, the job runs on");
    assert.equal(processes.size, 1);
    await processes.dispose();
    assert.equal(isGone(pid), true, "dispose resolves once the group is gone");
    assert.equal(processes.size, 0);
  });

  test("a job that ignores SIGTERM gets SIGKILL after the grace", async (t) => {
    const dir = await tempDir(t);
    const sent: (NodeJS.Signals | 0)[] = [];
    const processes = new ProcessGroups({
      killGraceMs: 200,
      signal: (pgid, signal) => {
        if (signal !== 0) sent.push(signal);
        process.kill(-pgid, signal);
      },
    });
    t.after(() => processes.dispose());
    const command = "(trap '' TERM; exec sleep 1000) > /dev/null 2>&1 & echo $!";
    const pid = firstNumber(textOf(await createBashTool({ cwd: dir, processes }).execute("c", { command })));
    killAfter(t, pid);
    await processes.dispose();
    await assertGone(pid);
    assert.deepEqual(sent.slice(0, 2), ["SIGTERM", "SIGKILL"]);
  });

  test("a timed-out command's group, once seen gone, gets no SIGKILL when the grace ends", async (t) => {
    const dir = await tempDir(t);
    const timers = new ManualTimers();
    const calls: [NodeJS.Signals | 0, string][] = [];
    const processes = new ProcessGroups({
      timers,
      signal: (pgid, signal) => {
        try {
          process.kill(-pgid, signal);
          calls.push([signal, "ok"]);
        } catch (error) {
          calls.push([signal, (error as NodeJS.ErrnoException).code ?? "?"]);
          throw error;
        }
      },
    });
    const bash = createBashTool({ cwd: dir, processes }, { killGraceMs: 60_000 });
    await rejectsWith(bash.execute("c", { command: "exec sleep 100", timeout: 0.2 }), "timedOut");
    // The leader was the only member and the tool has reaped it: the group is seen gone when the call ends.
    await waitUntil("the group to be seen gone", () => {
      timers.advance(25);
      return processes.size === 0;
    });
    assert.equal(timers.pending, 0, "no SIGKILL is waiting");
    const seen = calls.length;
    timers.advance(120_000);
    assert.equal(calls.length, seen);
    assert.deepEqual(calls[0], ["SIGTERM", "ok"]);
    assert.deepEqual(calls.at(-1), [0, "ESRCH"]);
    assert.ok(!calls.some(([signal]) => signal === "SIGKILL"), JSON.stringify(calls));
  });

  for (const ending of ["exit", "end", "crash"] as const) {
    test(`when the process ends (${ending}), the exit hook kills every group still owned`, async (t) => {
      const dir = await tempDir(t);
      const tools = new URL("../../src/tools/index.js", import.meta.url).href;
      const script = `
        const { createBashTool, ProcessGroups } = await import(${JSON.stringify(tools)});
        const processes = new ProcessGroups();
        const result = await createBashTool({ cwd: ${JSON.stringify(dir)}, processes }).execute("c", { command: "sleep 1000 > /dev/null 2>&1 & echo $!" });
        process.stdout.write(result.content[0].text + "\\n");
        if (${JSON.stringify(ending)} === "exit") process.exit(0);
        if (${JSON.stringify(ending)} === "crash") setTimeout(() => { throw new Error("crash"); });
      `;
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      const pid = firstNumber(out);
      killAfter(t, pid);
      assert.equal(code, ending === "crash" ? 1 : 0);
      await assertGone(pid);
    });
  }
});
