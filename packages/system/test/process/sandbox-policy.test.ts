import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { bwrapArgs, planMounts } from "../../src/process/sandbox/bwrap.js";
import { sandboxCommand } from "../../src/process/sandbox/command.js";
import type { SandboxPolicy } from "../../src/process/sandbox/policy.js";
import { seatbeltArgs, seatbeltProfile } from "../../src/process/sandbox/seatbelt.js";

const base: SandboxPolicy = {
  tmp: "/tmp/knightcode-sandbox-1-abcdef",
  writable: ["/home/u/project"],
  readOnly: ["/home/u/project/.git/hooks", "/home/u/project/.git/config", "/home/u/project/.knightcode"],
  hidden: [
    { path: "/home/u/.knightcode/agent", folder: true },
    { path: "/home/u/token", folder: false },
  ],
  network: false,
};

/** The mounts as `kind dest` lines, in order. */
const plan = (policy: SandboxPolicy): string[] => planMounts(policy).map((mount) => `${mount.kind} ${mount.dest}`);

describe("bubblewrap's view of the file system", () => {
  test("read-only root, fresh /dev and /proc, every namespace, no capability, and no network unless allowed", () => {
    const args = bwrapArgs(base, "/home/u/project/sub");
    for (const flag of ["--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net"])
      assert.ok(args.includes(flag), flag);
    assert.deepEqual(args.slice(args.indexOf("--cap-drop"), args.indexOf("--cap-drop") + 2), ["--cap-drop", "ALL"]);
    const joined = args.join(" ");
    assert.ok(joined.includes("--ro-bind / / --dev /dev --proc /proc"));
    assert.deepEqual(args.slice(-2), ["--chdir", "/home/u/project/sub"]);
    assert.ok(!bwrapArgs({ ...base, network: true }, "/").includes("--unshare-net"));
  });

  test("the writable folder, then what stays read-only inside it, and the hidden paths", () => {
    assert.deepEqual(plan(base), [
      "hide /home/u/.knightcode/agent",
      "write /home/u/project",
      "readOnly /home/u/project/.git/config",
      "readOnly /home/u/project/.git/hooks",
      "readOnly /home/u/project/.knightcode",
      "hide /home/u/token",
      "write /tmp/knightcode-sandbox-1-abcdef",
    ]);
    const args = bwrapArgs(base, "/");
    const at = (flag: string, ...rest: string[]) => args.findIndex((arg, i) => arg === flag && rest.every((r, j) => args[i + 1 + j] === r));
    assert.ok(at("--tmpfs", "/home/u/.knightcode/agent") > 0);
    assert.ok(at("--ro-bind", "/dev/null", "/home/u/token") > 0, "a hidden file is an empty one");
    assert.ok(at("--bind", "/home/u/project", "/home/u/project") > 0);
    assert.ok(at("--ro-bind", "/home/u/project/.git/hooks", "/home/u/project/.git/hooks") > at("--bind", "/home/u/project", "/home/u/project"));
  });

  test("a worktree inside the hidden agent folder shows through, and its control paths stay read-only", () => {
    const worktree = "/home/u/.knightcode/agent/worktrees/ab12/project";
    const policy: SandboxPolicy = { ...base, writable: [worktree], readOnly: [`${worktree}/.knightcode`] };
    assert.deepEqual(plan(policy), [
      "hide /home/u/.knightcode/agent",
      `write ${worktree}`,
      `readOnly ${worktree}/.knightcode`,
      "hide /home/u/token",
      "write /tmp/knightcode-sandbox-1-abcdef",
    ]);
  });

  test("the agent folder inside the thread's folder (a thread in the home folder's project) stays hidden", () => {
    const policy: SandboxPolicy = { ...base, writable: ["/home/u"], readOnly: [] };
    assert.deepEqual(plan(policy).slice(0, 2), ["write /home/u", "hide /home/u/.knightcode/agent"]);
  });

  test("mounts that change nothing are left out: read-only outside a writable folder, hidden inside what is hidden", () => {
    const policy: SandboxPolicy = {
      ...base,
      writable: [],
      readOnly: ["/home/u/project/.git/hooks"],
      hidden: [
        { path: "/home/u/.knightcode/agent", folder: true },
        { path: "/home/u/.knightcode/agent/auth.json", folder: false },
      ],
    };
    assert.deepEqual(plan(policy), ["hide /home/u/.knightcode/agent", "write /tmp/knightcode-sandbox-1-abcdef"]);
  });

  test("the command runs after `--`, so no argument of the model's is read as an option of bwrap", () => {
    const launch = { kind: "bwrap" as const, binary: "/usr/bin/bwrap", policy: base, env: {} };
    const { file, args } = sandboxCommand(launch, "/bin/bash", ["-c", "--bind / /"], { cwd: "/home/u/project", keepBackground: false, lifeline: "terminal" });
    assert.equal(file, "/usr/bin/bwrap");
    assert.deepEqual(args.slice(args.indexOf("--") + 5), ["/bin/bash", "-c", "--bind / /"]);
    const lifelines = [
      { lifeline: "pipe", keepBackground: false, first: /^printf 'started\\n' >&3 \|\| exit 125\n/ },
      { lifeline: "pipe", keepBackground: true, first: /^printf 'started\\n' >&3 \|\| exit 125\n/ },
      { lifeline: "terminal", keepBackground: false, first: /^printf '\\000' \|\| exit 125\nexec "\$@"$/ },
    ] as const;
    for (const { lifeline, keepBackground, first } of lifelines) {
      const wrapped = sandboxCommand(launch, "/bin/bash", ["-c", "x"], { cwd: "/", keepBackground, lifeline }).args;
      const inner = wrapped.slice(wrapped.indexOf("--") + 1);
      assert.deepEqual([inner[0], inner[1], inner[3]], ["/bin/sh", "-c", "knightcode-sandbox"]);
      assert.match(inner[2]!, first, `${lifeline}: the caller is asked for before anything else runs`);
      assert.deepEqual(inner.slice(4), ["/bin/bash", "-c", "x"]);
    }
  });
});

describe("the Seatbelt profile (macOS)", () => {
  const policy: SandboxPolicy = { ...base, hidden: [...base.hidden, { path: '/odd "path") (allow default', folder: true }] };

  test("no path is spliced into the profile: each is a parameter", () => {
    const { profile, params } = seatbeltProfile(policy);
    for (const value of Object.values(params)) assert.ok(!profile.includes(value), `${value} is in the profile text`);
    assert.equal(params.TMP_0, base.tmp);
    assert.equal(params.WRITABLE_0, "/home/u/project");
    assert.deepEqual(Object.keys(params).filter((name) => name.startsWith("READ_ONLY_")).length, 3);
    assert.equal(params.HIDDEN_2, '/odd "path") (allow default');
  });

  test("balanced, deny-only over allow default, with the network and others' process details denied", () => {
    const { profile } = seatbeltProfile(policy);
    let depth = 0;
    for (const char of profile) {
      depth += char === "(" ? 1 : char === ")" ? -1 : 0;
      assert.ok(depth >= 0);
    }
    assert.equal(depth, 0);
    const rules = profile.split("\n");
    assert.deepEqual(rules.slice(0, 2), ["(version 1)", "(allow default)"]);
    assert.ok(
      rules.slice(2).every((rule) => rule.startsWith("(deny ")),
      "every later rule is a deny",
    );
    assert.ok(profile.includes("(deny network*)"));
    assert.ok(profile.includes("(deny process-info* (target others))"));
    assert.match(profile, /\(deny file-write\* \(require-all \(require-not \(subpath \(param "TMP_0"\)\)\) \(require-not \(subpath \(param "WRITABLE_0"\)\)\)/);
    assert.match(profile, /\(deny file-read\* file-write\* \(require-all \(subpath \(param "HIDDEN_0"\)\) \(require-not \(subpath \(param "TMP_0"\)\)\)/);
    assert.ok(!seatbeltProfile({ ...policy, network: true }).profile.includes("network"));
  });

  test("sandbox-exec gets the profile and one -D per parameter, then the command", () => {
    const args = seatbeltArgs(base);
    assert.equal(args[0], "-p");
    assert.ok(args.includes(`WRITABLE_0=/home/u/project`));
    const launch = { kind: "seatbelt" as const, binary: "/usr/bin/sandbox-exec", policy: base, env: {} };
    const command = sandboxCommand(launch, "/bin/bash", ["-c", "true"], { cwd: "/", keepBackground: true, lifeline: "pipe" });
    assert.equal(command.file, "/usr/bin/sandbox-exec");
    assert.deepEqual(command.args.slice(-3), ["/bin/bash", "-c", "true"]);
  });
});
