import assert from "node:assert/strict";
import { test } from "node:test";
import { ProcessGroups } from "@knightcode/system/process/groups";
import { launchCommand } from "@knightcode/system/process/launch";
import { PtyLaunched, type PtyModule } from "@knightcode/system/process/pty-launch";
import type { SandboxLaunch } from "@knightcode/system/process/sandbox/command";

/** A node-pty that records what it was asked to start and starts nothing. */
function recordingPty(pid: number): { pty: PtyModule; spawned: Array<{ file: string; args: string[]; env: NodeJS.ProcessEnv }> } {
  const spawned: Array<{ file: string; args: string[]; env: NodeJS.ProcessEnv }> = [];
  const none = { dispose: () => undefined };
  const pty: PtyModule = {
    spawn: (file, args, options) => {
      spawned.push({ file, args, env: options.env });
      return { pid, onData: () => none, onExit: () => none, write: () => undefined, resize: () => undefined };
    },
  };
  return { pty, spawned };
}

test("a terminal runs the command line and environment launch makes, in the sandbox, its group owned", () => {
  const sandbox: SandboxLaunch = {
    kind: "bwrap",
    binary: "/usr/bin/bwrap",
    policy: { tmp: "/tmp/kc-sandbox-x", writable: ["/work/p"], readOnly: [], hidden: [], network: false },
    env: { TMPDIR: "/tmp/kc-sandbox-x" },
  };
  const options = { file: "/bin/bash", args: ["-c", "echo hi"], cwd: "/work/p", env: { PATH: "relative:/usr/bin", HOME: "/h" }, sandbox };
  // A pid no process has: the owner holds it without signalling anyone.
  const signals: Array<[number, NodeJS.Signals | 0]> = [];
  const processes = new ProcessGroups({ signal: (pgid, signal) => void signals.push([pgid, signal]) });
  const { pty, spawned } = recordingPty(4_000_000);
  const run = new PtyLaunched(pty, { ...options, processes, killGraceMs: 0, cols: 80, rows: 24 });
  const expected = launchCommand(options);
  assert.deepEqual(spawned, [{ file: expected.file, args: expected.args, env: expected.env }]);
  assert.equal(spawned[0]!.file, "/usr/bin/bwrap");
  assert.deepEqual(
    spawned[0]!.args.slice(-4),
    ["--", "/bin/bash", "-c", "echo hi"],
    "the shell runs inside bubblewrap, with no status pipe a terminal cannot give",
  );
  assert.equal(spawned[0]!.env.PATH, "/usr/bin", "relative PATH entries removed as for every child");
  assert.equal(spawned[0]!.env.TMPDIR, "/tmp/kc-sandbox-x");
  assert.equal(processes.size, 1, "the session leader's group belongs to the owner");
  run.stop();
  assert.deepEqual(signals.at(-1), [4_000_000, "SIGKILL"], "stop signals the whole group");
});
