import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { hostProcesses, waitUntil } from "@knightcode/testkit";
import { ProcessGroups } from "@knightcode/system/process/groups";
import { launch } from "@knightcode/system/process/launch";
import type { SandboxLaunch } from "@knightcode/system/process/sandbox/command";
import { sandboxSupport } from "@knightcode/system/process/sandbox/support";

/**
 * bubblewrap's init, the sandbox's first process, takes --die-with-parent
 * only once the sandbox is set up, and as the init of its own pid
 * namespace it ignores SIGTERM. A sandbox stopped before that point would
 * lose its bubblewrap and keep its init, which then starts the command.
 */

const support = await sandboxSupport();
const skip = support.available && support.kind === "bwrap" ? false : `bubblewrap cannot run here: ${support.reason ?? support.kind}`;

/** Whether bubblewrap has a child yet (its init, cloned before the mounts); also true once it is gone, as there is nothing to wait for then. */
function cloned(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim() !== "";
  } catch {
    return true;
  }
}

test("a sandbox stopped while bubblewrap sets it up leaves nothing running", { skip }, async (t) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "kc-sandbox-stop-")));
  // Whatever a failed run leaves, the cleanup kills at once.
  const processes = new ProcessGroups({ killGraceMs: 0 });
  t.after(async () => {
    await processes.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  const sandbox: SandboxLaunch = {
    kind: "bwrap",
    binary: support.binary!,
    policy: { tmp: dir, writable: [dir], readOnly: [], hidden: [], network: false },
    env: { TMPDIR: dir },
  };
  for (let i = 0; i < 5; i++) {
    // A duration no other process uses: the command line that finds this run's processes, bubblewrap's init among them.
    const token = `600.${process.pid}${i}`;
    // A grace far longer than the test: only the end of bubblewrap can be what kills the rest.
    const run = launch({ file: "/bin/sh", args: ["-c", `sleep ${token}`], cwd: dir, env: { PATH: process.env.PATH }, sandbox, processes, killGraceMs: 60_000 });
    await run.spawned;
    // The moment bubblewrap has cloned its init, which is still mounting: stop it there.
    const deadline = Date.now() + 10_000;
    while (!cloned(run.pid!) && Date.now() < deadline) {
      // a condition, polled as tightly as it can be: the window lasts a few milliseconds
    }
    run.stop();
    // Well before the grace's SIGKILL could have done it.
    await waitUntil(`run ${i}: nothing of the sandbox left`, () => hostProcesses((line) => line.includes(token)).length === 0, 20_000);
    const end = await run.done;
    assert.equal(end.signal, "SIGTERM", `run ${i}: bubblewrap ended by the stop`);
  }
});
