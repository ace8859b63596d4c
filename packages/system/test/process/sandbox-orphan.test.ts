import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { hostProcesses, waitUntil } from "@knightcode/testkit";
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

test("a sandbox whose launcher was killed while it was being set up never starts the command", { skip }, async (t) => {
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
      `echo $$ > '${wrapperPid}'`,
      // The test's turn, not a timing: the launcher is killed before this loop ends.
      `while [ ! -e '${go}' ]; do sleep 0.01; done`,
      `exec '${support.binary!}' "$@"`,
    ].join("\n"),
  );
  chmodSync(wrapper, 0o755);
  // The launcher: a process of its own that starts the sandboxed command, says so, and waits to be killed.
  const launchUrl = import.meta.resolve("@knightcode/system/process/launch");
  const launcherScript = `
    const { launch } = await import(${JSON.stringify(launchUrl)});
    const sandbox = { kind: "bwrap", binary: ${JSON.stringify(wrapper)}, env: { TMPDIR: ${JSON.stringify(dir)} },
      policy: { tmp: ${JSON.stringify(dir)}, writable: [${JSON.stringify(dir)}], readOnly: [], hidden: [], network: false } };
    const run = launch({ file: "/bin/sh", args: ["-c", "touch ${mark} && exec sleep ${token}"], cwd: ${JSON.stringify(dir)},
      env: { PATH: process.env.PATH }, sandbox });
    await run.spawned;
    process.stdout.write("spawned\\n");
    setInterval(() => {}, 1 << 30);
  `;
  const launcher = spawn(process.execPath, ["--input-type=module", "-e", launcherScript], { stdio: ["ignore", "pipe", "inherit"] });
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
