import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { hostProcesses, waitUntil } from "@knightcode/testkit";
import { loadPty } from "@knightcode/system/process/pty-launch";
import { sandboxSupport } from "@knightcode/system/process/sandbox/support";

/**
 * bubblewrap takes --die-with-parent only once it has set the sandbox up. A
 * server killed (SIGKILL: nothing of it runs after) in those milliseconds
 * leaves a sandbox no one will stop, which would then start the command.
 * Here that window is held open: the sandbox program is a script that
 * waits for the test before it becomes bubblewrap, and the process that
 * launched it is killed meanwhile.
 */

const support = await sandboxSupport();
const skip = support.available && support.kind === "bwrap" ? false : `bubblewrap cannot run here: ${support.reason ?? support.kind}`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z");
  } catch {
    return false;
  }
}

/**
 * The launcher: a process of its own that starts `/bin/sh -c <command>` in
 * the sandbox through `runner` (its code, given `sandbox` and `command`),
 * says so, and waits to be killed.
 */
function launcherScript(runner: string): string {
  return `
    ${runner}
    process.stdout.write("spawned\\n");
    setInterval(() => {}, 1 << 30);
  `;
}

const RUNNERS = {
  /** launch: the sandbox's lifeline is a pipe on fd 3. */
  pipes: async () => {
    const url = import.meta.resolve("@knightcode/system/process/launch");
    return `
      const { launch } = await import(${JSON.stringify(url)});
      const run = launch({ file: "/bin/sh", args: ["-c", command], cwd: sandbox.policy.tmp, env: { PATH: process.env.PATH }, sandbox });
      await run.spawned;
    `;
  },
  /** A terminal: node-pty gives no fd 3, and the lifeline is the terminal itself. */
  terminal: async () => {
    const url = import.meta.resolve("@knightcode/system/process/pty-launch");
    return `
      const { loadPty, PtyLaunched } = await import(${JSON.stringify(url)});
      new PtyLaunched(loadPty(), { file: "/bin/sh", args: ["-c", command], cwd: sandbox.policy.tmp, env: { PATH: process.env.PATH }, sandbox, cols: 80, rows: 24, killGraceMs: 0 });
    `;
  },
};

const noPty = ((): string | false => {
  try {
    loadPty();
    return false;
  } catch (error) {
    return `node-pty cannot load here: ${String(error)}`;
  }
})();

for (const [name, runner] of Object.entries(RUNNERS)) {
  test(`a sandbox whose launcher was killed while it was being set up never starts the command (${name})`, {
    skip: skip || (name === "terminal" && noPty),
  }, async (t) => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "kc-sandbox-orphan-")));
    // A duration no other process uses: the command line that finds whatever this test leaves.
    const token = `700.${process.pid}`;
    t.after(() => {
      for (const pid of hostProcesses((line) => line.includes(token) || line.includes(dir))) process.kill(pid, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    });
    const mark = join(dir, "the-command-ran");
    const go = join(dir, "go");
    const wrapperPid = join(dir, "wrapper.pid");
    const wrapper = join(dir, "bwrap");
    writeFileSync(
      wrapper,
      [
        "#!/bin/sh",
        // A terminal is hung up when its launcher dies, and this shell would die of the SIGHUP; the sandbox's
        // first process, the pid namespace's init, ignores it. Ignoring it here keeps the window open as it is.
        "trap '' HUP",
        `echo $$ > '${wrapperPid}'`,
        // The test's turn, not a timing: the launcher is killed before this loop ends.
        `while [ ! -e '${go}' ]; do sleep 0.01; done`,
        `exec '${support.binary!}' "$@"`,
      ].join("\n"),
    );
    chmodSync(wrapper, 0o755);
    const sandbox = {
      kind: "bwrap",
      binary: wrapper,
      env: { TMPDIR: dir },
      policy: { tmp: dir, writable: [dir], readOnly: [], hidden: [], network: false },
    };
    const setup = `const sandbox = ${JSON.stringify(sandbox)}; const command = ${JSON.stringify(`touch ${mark} && exec sleep ${token}`)};`;
    const script = launcherScript(`${setup}\n${await runner()}`);
    const launcher = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    let said = "";
    launcher.stdout.on("data", (chunk: Buffer) => (said += chunk.toString()));
    await waitUntil(
      "the launcher to start the sandbox",
      () => said.includes("spawned") && existsSync(wrapperPid) && readFileSync(wrapperPid, "utf8").trim() !== "",
    );
    const sandboxPid = Number(readFileSync(wrapperPid, "utf8").trim());
    const exited = new Promise((resolve) => launcher.once("exit", resolve));
    launcher.kill("SIGKILL");
    await exited;
    writeFileSync(go, "");
    // bubblewrap now sets the sandbox up for a launcher that is gone: it must end without running the command.
    await waitUntil("the orphaned sandbox to end, or the command to run", () => !alive(sandboxPid) || existsSync(mark), 20_000);
    assert.equal(existsSync(mark), false, "the command ran in a sandbox no one owned");
    assert.deepEqual(
      hostProcesses((line) => line.includes(token)),
      [],
    );
  });
}
