import assert from "node:assert/strict";
import { test } from "node:test";
import { ProcessGroups } from "@knightcode/system/process/groups";
import { launchCommand } from "@knightcode/system/process/launch";
import { PtyLaunched, type PtyModule } from "@knightcode/system/process/pty-launch";
import type { SandboxLaunch } from "@knightcode/system/process/sandbox/command";

type ExitEvent = { exitCode: number; signal?: number };

/** A node-pty that records what it was asked to start and starts nothing; `exit` plays the program's end, `output` its terminal's output. */
function recordingPty(pid: number): {
  pty: PtyModule;
  spawned: Array<{ file: string; args: string[]; env: NodeJS.ProcessEnv }>;
  exit: (event: ExitEvent) => void;
  output: (data: Buffer) => void;
} {
  const spawned: Array<{ file: string; args: string[]; env: NodeJS.ProcessEnv }> = [];
  const none = { dispose: () => undefined };
  const exits: Array<(event: ExitEvent) => void> = [];
  const listeners = new Set<(data: Buffer) => void>();
  const pty: PtyModule = {
    spawn: (file, args, options) => {
      spawned.push({ file, args, env: options.env });
      const onExit = (listener: (event: ExitEvent) => void) => {
        exits.push(listener);
        return none;
      };
      const onData = (listener: (data: Buffer | string) => void) => {
        const each = (data: Buffer) => listener(data);
        listeners.add(each);
        return { dispose: () => void listeners.delete(each) };
      };
      return { pid, onData, onExit, write: () => undefined, resize: () => undefined };
    },
  };
  const exit = (event: ExitEvent): void => {
    for (const listener of exits.splice(0)) listener(event);
  };
  // As node-pty does: the listeners as they were when the chunk came, in the order they came.
  const output = (data: Buffer): void => {
    for (const listener of [...listeners]) listener(data);
  };
  return { pty, spawned, exit, output };
}

const SANDBOX: SandboxLaunch = {
  kind: "bwrap",
  binary: "/usr/bin/bwrap",
  policy: { tmp: "/tmp/kc-sandbox-x", writable: ["/work/p"], readOnly: [], hidden: [], network: false },
  env: { TMPDIR: "/tmp/kc-sandbox-x" },
};

test("a terminal runs the command line and environment launch makes, in the sandbox, its group owned", () => {
  const sandbox = SANDBOX;
  const options = { file: "/bin/bash", args: ["-c", "echo hi"], cwd: "/work/p", env: { PATH: "relative:/usr/bin", HOME: "/h" }, sandbox };
  // A pid no process has: the owner holds it without signalling anyone.
  const signals: Array<[number, NodeJS.Signals | 0]> = [];
  const processes = new ProcessGroups({ signal: (pgid, signal) => void signals.push([pgid, signal]) });
  const { pty, spawned } = recordingPty(4_000_000);
  const run = new PtyLaunched(pty, { ...options, processes, killGraceMs: 0, cols: 80, rows: 24 });
  const expected = launchCommand(options, false);
  assert.deepEqual(spawned, [{ file: expected.file, args: expected.args, env: expected.env }]);
  assert.equal(spawned[0]!.file, "/usr/bin/bwrap");
  const inner = spawned[0]!.args.slice(spawned[0]!.args.indexOf("--") + 1);
  assert.deepEqual([inner[0], inner[1], inner[3], ...inner.slice(4)], ["/bin/sh", "-c", "knightcode-sandbox", "/bin/bash", "-c", "echo hi"]);
  assert.match(inner[2]!, /^printf '\\000' \|\| exit 125\n/, "the shell runs inside bubblewrap, its lifeline on the terminal: it has no fd 3");
  assert.equal(spawned[0]!.env.PATH, "/usr/bin", "relative PATH entries removed as for every child");
  assert.equal(spawned[0]!.env.TMPDIR, "/tmp/kc-sandbox-x");
  assert.equal(processes.size, 1, "the session leader's group belongs to the owner");
  run.stop();
  assert.deepEqual(signals.at(-1), [4_000_000, "SIGKILL"], "stop signals the whole group");
});

/** A terminal on a recording pty, its groups held by no one who signals: for what its listeners hear. */
function quietTerminal(pid: number, sandbox: SandboxLaunch | undefined): { run: PtyLaunched; output: (data: Buffer) => void } {
  const { pty, output } = recordingPty(pid);
  const processes = new ProcessGroups({ signal: () => undefined });
  const run = new PtyLaunched(pty, {
    file: "/bin/sh",
    args: [],
    cwd: "/",
    env: {},
    processes,
    killGraceMs: 0,
    cols: 80,
    rows: 24,
    ...(sandbox ? { sandbox } : {}),
  });
  return { run, output };
}

test("a sandboxed terminal's first byte, its lifeline, reaches no listener; every other byte does", () => {
  const heard = (sandbox: SandboxLaunch | undefined) => {
    const { run, output } = quietTerminal(4_000_002, sandbox);
    const early: string[] = [];
    const late: string[] = [];
    run.onData((chunk) => early.push(chunk.toString("latin1")));
    output(Buffer.from("\0$ "));
    run.onData((chunk) => late.push(chunk.toString("latin1")));
    output(Buffer.from("\0"));
    output(Buffer.from("ls\r\n"));
    return { early, late };
  };
  assert.deepEqual(heard(SANDBOX), { early: ["$ ", "\0", "ls\r\n"], late: ["\0", "ls\r\n"] }, "only the first chunk's first byte is the lifeline");
  assert.deepEqual(heard(undefined), { early: ["\0$ ", "\0", "ls\r\n"], late: ["\0", "ls\r\n"] }, "outside a sandbox there is none");
  // A sandbox whose first chunk is its lifeline alone: no empty chunk is passed on.
  const { run, output } = quietTerminal(4_000_003, SANDBOX);
  const chunks: string[] = [];
  run.onData((chunk) => chunks.push(chunk.toString("latin1")));
  output(Buffer.from("\0"));
  output(Buffer.from("ready"));
  assert.deepEqual(chunks, ["ready"]);
});

test("when the terminal's program ends, what is left of its group: killed at once in the sandbox, stopped after a signal outside", async () => {
  const cases = [
    { sandbox: SANDBOX, event: { exitCode: 0 }, sent: ["SIGKILL"], why: "bubblewrap gone: its sandbox is killed as --die-with-parent would" },
    { sandbox: undefined, event: { exitCode: 0, signal: 15 }, sent: ["SIGTERM"], why: "killed by a signal: what it ran did not finish" },
    { sandbox: undefined, event: { exitCode: 3 }, sent: [], why: "a program that returned leaves its background jobs to the owner" },
  ];
  for (const { sandbox, event, sent, why } of cases) {
    const signals: Array<NodeJS.Signals | 0> = [];
    // Timers that never fire: what is sent at once is all there is to see.
    const timers = { setTimeout: () => undefined, clearTimeout: () => undefined };
    const processes = new ProcessGroups({ signal: (_pgid, signal) => void signals.push(signal), timers });
    const { pty, exit } = recordingPty(4_000_001);
    const run = new PtyLaunched(pty, {
      file: "/bin/bash",
      args: ["-c", "sleep 600 &"],
      cwd: "/work/p",
      env: {},
      processes,
      killGraceMs: 60_000,
      cols: 80,
      rows: 24,
      ...(sandbox ? { sandbox } : {}),
    });
    exit(event);
    await run.done;
    assert.deepEqual(
      signals.filter((signal) => signal !== 0),
      sent,
      why,
    );
  }
});
