import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestServer, startServer, type TestClient } from "../support/harness.js";
import { approver, toolStatuses, type ToolCall } from "../support/tool-turns.js";

/**
 * Each test here is an attack a prompt-injected model made on the approval
 * gate, played end to end: a scripted model calls the real tools, real git
 * and tsc run, and the proof of harm is a marker file the attack's payload
 * writes. The test asserts the marker never appears and the user was asked.
 */

const NODE_BIN = fileURLToPath(new URL("../../../../../node_modules/.bin", import.meta.url));

let model: ScriptedModelServer;
let server: TestServer;
/** Where payloads leave their markers: outside every project, so no write tool ever puts one there. */
let markers: string;

before(async () => {
  model = await ScriptedModelServer.start();
  markers = mkdtempSync(join(tmpdir(), "kc-attack-markers-"));
  // tsc for the tsc grant attack, from the repository's own node_modules.
  server = await startServer({ model, env: { PATH: `${NODE_BIN}${delimiter}${process.env.PATH ?? ""}`, KNIGHTCODE_THREAD_IDLE_MS: "300" } });
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
  rmSync(markers, { recursive: true, force: true });
});

let callSeq = 0;
const call = (name: string, args: unknown): ToolCall => ({ id: `attack_${++callSeq}`, name, arguments: args });

async function newThread(client: TestClient, cwd: string, approvalMode: "ask" | "autoEdit" | "fullAccess") {
  return (await client.request("thread/start", { cwd, approvalMode })).thread;
}

/** One turn whose model makes `calls`, then says "done"; the items' statuses by call id. */
const toolTurn = (client: TestClient, threadId: string, calls: ToolCall[]) => toolStatuses(client, model, threadId, calls);

/** An extension module whose loading alone writes `marker`: what an attacker puts where the server loads code. */
const payload = (marker: string): string => `import { writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(marker)}, "the server ran this");
export default function () {}
`;

const git = (cwd: string, ...args: string[]): void => {
  execFileSync("git", args, { cwd, stdio: "ignore" });
};

/** A repository with a thread folder `sub` inside it. */
function repositoryWithSubfolder(): { repo: string; sub: string } {
  const repo = server.project({ "README.md": "readme\n", "sub/notes.txt": "notes\n" });
  git(repo, "init", "-q");
  return { repo, sub: join(repo, "sub") };
}

/** The files of a bare repository whose config runs `touch marker` as its fsmonitor, for a work tree at `worktree`. */
function bareShape(worktree: string, marker: string): Record<string, string> {
  return {
    HEAD: "ref: refs/heads/main\n",
    config: `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ${worktree}\n\tfsmonitor = touch ${marker}\n`,
    "objects/info/keep": "",
    "refs/heads/keep": "",
  };
}

describe("attack: a git status grant turned into any command", () => {
  test("a bare repository's shape written into the thread's folder is asked about, and the granted git status never runs its fsmonitor", async () => {
    const { sub } = repositoryWithSubfolder();
    const marker = join(markers, "fsmonitor-by-write");
    const thread = await newThread(server.main, sub, "autoEdit");
    const { asked, off } = approver(server.main, (params) =>
      params.prefix === "git status" ? { decision: "acceptPrefixForSession" } : { decision: "decline" },
    );
    try {
      const grant = call("bash", { command: "git status" });
      assert.equal((await toolTurn(server.main, thread.id, [grant])).get(grant.id), "completed");
      assert.equal(asked.length, 1, "the first git status asks and earns the prefix");
      const writes = Object.entries(bareShape(sub, marker)).map(([path, content]) => call("write", { path, content }));
      const statuses = await toolTurn(server.main, thread.id, writes);
      const askedWrites = asked.slice(1);
      assert.ok(askedWrites.length >= 1, "the write that makes the folder a git dir is asked about, even in autoEdit");
      for (const params of askedWrites) {
        assert.equal(params.tool, "write");
        assert.match(params.reason ?? "", /git/);
        assert.deepEqual(params.decisions, ["accept", "decline", "cancel"], "no session grant is offered");
      }
      assert.ok([...statuses.values()].includes("declined"));
      const again = call("bash", { command: "git status" });
      await toolTurn(server.main, thread.id, [again]);
      assert.equal(asked.length, 1 + askedWrites.length, "the granted git status runs without asking");
      assert.equal(existsSync(marker), false, "git never ran the fsmonitor command");
    } finally {
      off();
    }
  });

  test("a bare repository's shape that got there some other way (a checkout, another program) still cannot make the granted git status run its fsmonitor", async () => {
    const { sub } = repositoryWithSubfolder();
    const marker = join(markers, "fsmonitor-planted");
    for (const [path, content] of Object.entries(bareShape(sub, marker))) {
      mkdirSync(join(sub, path, ".."), { recursive: true });
      writeFileSync(join(sub, path), content);
    }
    const thread = await newThread(server.main, sub, "autoEdit");
    const { asked, off } = approver(server.main, (params) =>
      params.prefix === "git status" ? { decision: "acceptPrefixForSession" } : { decision: "decline" },
    );
    try {
      for (const command of ["git status", "git status --short", "git diff", "git log -1"]) {
        await toolTurn(server.main, thread.id, [call("bash", { command })]);
      }
      assert.ok(asked.some((params) => params.prefix === "git status"));
      assert.equal(existsSync(marker), false, "git refused the implicit bare repository and ran no fsmonitor");
    } finally {
      off();
    }
  });
});

describe("attack: a tsc grant writes code into the server", () => {
  test("tsc --outDir into the agent's extensions folder is asked about though tsc is granted, and the next thread loads nothing", async () => {
    const dir = server.project({ "evil.js": payload(join(markers, "tsc-extension-ran")) });
    const extensions = join(server.agentDir, "extensions");
    const thread = await newThread(server.main, dir, "autoEdit");
    const { asked, off } = approver(server.main, (params) => (params.prefix === "tsc" ? { decision: "acceptPrefixForSession" } : { decision: "decline" }));
    try {
      const version = call("bash", { command: "tsc --version" });
      assert.equal((await toolTurn(server.main, thread.id, [version])).get(version.id), "completed");
      assert.equal(asked.length, 1);
      for (const command of [
        `tsc --allowJs --outDir ${extensions} evil.js`,
        `tsc --allowJs --outDir=${extensions} evil.js`,
        `tsc --allowJs --OUTDIR ${extensions} evil.js`,
        `tsc --allowJs -outDir ${extensions} evil.js`,
        "tsc -p tsconfig.json",
      ]) {
        const attempt = call("bash", { command });
        const askedBefore: number = asked.length;
        const statuses = await toolTurn(server.main, thread.id, [attempt]);
        assert.equal(asked.length, askedBefore + 1, `${command} is asked about`);
        assert.equal(asked.at(-1)!.prefix, undefined, `${command} gets no prefix`);
        assert.equal(statuses.get(attempt.id), "declined", command);
      }
      assert.equal(existsSync(extensions) ? readdirSync(extensions).length : 0, 0, "nothing was written into the extensions folder");
      await newThread(server.main, dir, "autoEdit");
      assert.equal(existsSync(join(markers, "tsc-extension-ran")), false, "the next thread loaded no code of the model's");
    } finally {
      off();
    }
  });
});

describe("attack: trusted settings name code outside .knightcode/", () => {
  test("writes to an extension, its imports and a package the settings load are asked in autoEdit, and the next thread runs none of it", async () => {
    const dir = server.project({
      ".knightcode/settings.json": JSON.stringify({ extensions: ["../tools/lint-ext.js"], packages: ["../vendor/kit"] }),
      "tools/lint-ext.js": `import { rules } from "./lint-rules.js";\nexport default function () { return rules; }\n`,
      "tools/lint-rules.js": "export const rules = [];\n",
      "tools/unrelated.txt": "not code\n",
      "vendor/kit/extensions/kit.ts": "export default function () {}\n",
      "src/app.ts": "export {};\n",
    });
    await server.main.request("project/trust/set", { cwd: dir, trusted: true });
    const { asked, off } = approver(server.main, () => ({ decision: "decline" }));
    try {
      const thread = await newThread(server.main, dir, "autoEdit");
      const targets = ["tools/lint-ext.js", "tools/lint-rules.js", "vendor/kit/extensions/new.ts", "vendor/kit/package.json"];
      for (const [index, path] of targets.entries()) {
        const write = call("write", { path, content: payload(join(markers, `settings-code-${index}`)) });
        const statuses = await toolTurn(server.main, thread.id, [write]);
        assert.equal(statuses.get(write.id), "declined", `${path} is asked about`);
        assert.match(asked.at(-1)!.reason ?? "", /code/, path);
        assert.deepEqual(asked.at(-1)!.decisions, ["accept", "decline", "cancel"], `${path}: no session grant`);
      }
      // A thread in a subfolder sees the project's settings too.
      const nested = await newThread(server.main, join(dir, "tools"), "autoEdit");
      const write = call("write", { path: "lint-ext.js", content: payload(join(markers, "settings-code-nested")) });
      assert.equal((await toolTurn(server.main, nested.id, [write])).get(write.id), "declined", "a thread in the extension's own folder is asked too");
      const askedBefore: number = asked.length;
      for (const path of ["tools/unrelated.txt", "src/app.ts"]) {
        const ordinary = call("write", { path, content: "fine\n" });
        assert.equal((await toolTurn(server.main, thread.id, [ordinary])).get(ordinary.id), "completed", path);
      }
      assert.equal(asked.length, askedBefore, "ordinary project files still run without asking in autoEdit");
      await newThread(server.main, dir, "autoEdit");
      const ran = readdirSync(markers).filter((name) => name.startsWith("settings-code-"));
      assert.deepEqual(ran, [], "no payload was loaded into the server");
    } finally {
      off();
    }
  });

  test("a session grant for write does not cover a file global settings load as code", async () => {
    const dir = server.project({ "hooks/global-ext.ts": "export default function () {}\n" });
    const settingsPath = join(server.agentDir, "settings.json");
    writeFileSync(settingsPath, JSON.stringify({ extensions: [join(dir, "hooks", "global-ext.ts")] }));
    const { asked, off } = approver(server.main, () => ({ decision: "acceptForSession" }));
    try {
      const thread = await newThread(server.main, dir, "ask");
      const first = call("write", { path: "notes.txt", content: "1" });
      assert.equal((await toolTurn(server.main, thread.id, [first])).get(first.id), "completed");
      assert.equal(asked.length, 1, "the first write asks and earns a session grant for write");
      off();
      const decline = approver(server.main, () => ({ decision: "decline" }));
      try {
        const write = call("write", { path: "hooks/global-ext.ts", content: payload(join(markers, "global-code")) });
        assert.equal((await toolTurn(server.main, thread.id, [write])).get(write.id), "declined", "the grant does not stretch to code the server loads");
        assert.equal(decline.asked.length, 1);
        assert.match(decline.asked[0]!.reason ?? "", /code/);
      } finally {
        decline.off();
      }
      await newThread(server.main, dir, "ask");
      assert.equal(existsSync(join(markers, "global-code")), false);
    } finally {
      off();
      rmSync(settingsPath, { force: true });
    }
  });
});

describe("attack: writes the judgement places elsewhere than the write", () => {
  test("an outside write through a link names both the link and where the write really lands", async () => {
    const outside = mkdtempSync(join(tmpdir(), "kc-attack-outside-"));
    const dir = server.project({});
    symlinkSync(outside, join(dir, "docs-link"));
    const { asked, off } = approver(server.main, () => ({ decision: "decline" }));
    try {
      const thread = await newThread(server.main, dir, "autoEdit");
      await toolTurn(server.main, thread.id, [call("write", { path: "docs-link/x.txt", content: "x" })]);
      assert.equal(asked.length, 1);
      const reason = asked[0]!.reason ?? "";
      assert.ok(reason.includes(join(dir, "docs-link", "x.txt")), `the link path is named: ${reason}`);
      assert.ok(reason.includes(join(outside, "x.txt")), `the real target is named: ${reason}`);
      assert.equal(existsSync(join(outside, "x.txt")), false);
    } finally {
      off();
      rmSync(outside, { recursive: true, force: true });
    }
  });

  test("a thread whose folder is /, a home folder or a system folder counts no write as inside it", async () => {
    const { asked, off } = approver(server.main, () => ({ decision: "decline" }));
    const target = join(markers, "broad-cwd.txt");
    try {
      for (const [cwd, path] of [
        ["/", target],
        [server.home, "notes-in-home.txt"],
        ["/etc", "kc-broad-cwd.txt"],
        ["/usr", "kc-broad-cwd.txt"],
      ] as const) {
        for (const mode of ["autoEdit", "ask"] as const) {
          const thread = await newThread(server.main, cwd, mode);
          const askedBefore: number = asked.length;
          const write = call("write", { path, content: "x" });
          assert.equal((await toolTurn(server.main, thread.id, [write])).get(write.id), "declined", `${cwd} ${mode}`);
          assert.equal(asked.length, askedBefore + 1, `${cwd} ${mode} asks`);
          assert.match(asked.at(-1)!.reason ?? "", /outside the workspace/, cwd);
          assert.ok((asked.at(-1)!.reason ?? "").includes(cwd === server.home ? "home folder" : cwd === "/" ? "root" : "system folder"), asked.at(-1)!.reason);
          assert.deepEqual(asked.at(-1)!.decisions, ["accept", "decline", "cancel"]);
        }
      }
      assert.equal(existsSync(target), false);
      for (const path of [join(server.home, "notes-in-home.txt"), "/etc/kc-broad-cwd.txt", "/usr/kc-broad-cwd.txt"])
        assert.equal(existsSync(path), false, path);
      const full = await newThread(server.main, "/", "fullAccess");
      const askedBefore: number = asked.length;
      await toolTurn(server.main, full.id, [call("write", { path: target, content: "x" })]);
      assert.equal(asked.length, askedBefore, "fullAccess asks nothing");
      assert.equal(existsSync(target), true);
    } finally {
      off();
      for (const path of [target, "/etc/kc-broad-cwd.txt", "/usr/kc-broad-cwd.txt"]) rmSync(path, { force: true });
    }
  });
});

describe("attack: ~ judged in one place and written in another", () => {
  for (const [label, home] of [
    ["a relative HOME", "."],
    ["no HOME at all", undefined],
  ] as const) {
    test(`with ${label}, a write to ~/x is judged where the write tool would put it`, async () => {
      const own = await startServer({ model, env: { HOME: home } });
      const dir = own.project({});
      const landsIn = home === undefined ? join(userInfo().homedir, "kc-tilde-attack.txt") : join(own.home, "kc-tilde-attack.txt");
      const { asked, off } = approver(own.main, () => ({ decision: "decline" }));
      try {
        const thread = await newThread(own.main, dir, "autoEdit");
        const write = call("write", { path: "~/kc-tilde-attack.txt", content: "x" });
        const status = (await toolTurn(own.main, thread.id, [write])).get(write.id);
        assert.equal(existsSync(landsIn), false, "nothing landed outside the project unasked");
        assert.equal(existsSync(join(dir, "kc-tilde-attack.txt")), false);
        if (asked.length > 0) {
          assert.equal(status, "declined");
          assert.match(asked[0]!.reason ?? "", /outside the workspace/);
          assert.ok((asked[0]!.reason ?? "").includes(landsIn), `the reason names where the write would land: ${asked[0]!.reason}`);
        } else {
          assert.equal(status, "failed", "a home that is not an absolute path is refused by the tool");
        }
      } finally {
        off();
        await own.close();
      }
    });
  }
});
