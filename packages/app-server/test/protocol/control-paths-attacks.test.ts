import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, type TestClient, type TestServer } from "../support/harness.js";
import { approver, toolStatuses, type ToolCall } from "../support/tool-turns.js";

/**
 * Attacks on the control paths a prompt-injected model can reach with a
 * plain write in autoEdit: code that `-e` extensions load beyond their
 * own folder or file, and the hooks a repository names with
 * `core.hooksPath`. The proof of harm is a marker the payload writes when
 * git or the server runs it.
 */

let model: ScriptedModelServer;
let markers: string;
/** Holds the `-e` extensions and their imports; a thread runs here. */
let project: string;
let server: TestServer;

/** A module whose loading writes `marker`, in the module system the file name implies. */
const payload = (marker: string, commonJs = false): string =>
  commonJs
    ? `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\nmodule.exports = {};\n`
    : `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nexport const x = 1;\n`;

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

before(async () => {
  model = await ScriptedModelServer.start();
  markers = mkdtempSync(join(tmpdir(), "kc-control-markers-"));
  project = mkdtempSync(join(tmpdir(), "kc-control-project-"));
  writeTree(project, {
    "exts/folder-ext/index.ts": `import { shared } from "../shared/x.ts";\nexport default function () { return shared; }\n`,
    "exts/shared/x.ts": "export const shared = 1;\n",
    "exts/file-ext.ts": `export default async function () { await import("./opt").catch(() => undefined); }\n`,
    "exts/opt/index.cjs": "module.exports = {};\n",
    "src/app.ts": "export {};\n",
  });
  server = await startServer({ model, args: ["-e", join(project, "exts", "folder-ext"), "-e", join(project, "exts", "file-ext.ts")] });
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
  rmSync(markers, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});

let callSeq = 0;
const call = (name: string, args: unknown): ToolCall => ({ id: `control_${++callSeq}`, name, arguments: args });

/** One turn whose model makes `calls`, then says "done"; the items' statuses by call id. */
const toolTurn = (client: TestClient, threadId: string, calls: ToolCall[]) => toolStatuses(client, model, threadId, calls);

/** Writes each path in autoEdit with a declining user; every one must be asked about as a control write. */
async function expectAsked(cwd: string, paths: readonly string[], commonJs: (path: string) => boolean, tag: string): Promise<void> {
  const { asked, off } = approver(server.main, () => ({ decision: "decline" }));
  try {
    const thread = (await server.main.request("thread/start", { cwd, approvalMode: "autoEdit" })).thread;
    for (const [index, path] of paths.entries()) {
      const before: number = asked.length;
      const write = call("write", { path, content: payload(join(markers, `${tag}-${index}`), commonJs(path)) });
      const statuses = await toolTurn(server.main, thread.id, [write]);
      assert.equal(asked.length, before + 1, `${path} is asked about in autoEdit`);
      assert.equal(statuses.get(write.id), "declined", path);
      assert.ok((asked.at(-1)!.reason ?? "") !== "", `${path} is asked with a reason`);
      assert.deepEqual(asked.at(-1)!.decisions, ["accept", "decline", "cancel"], `${path}: no session grant`);
    }
    const ordinary = call("write", { path: "src/app.ts", content: "export const fine = 1;\n" });
    const before: number = asked.length;
    assert.equal((await toolTurn(server.main, thread.id, [ordinary])).get(ordinary.id), "completed");
    assert.equal(asked.length, before, "an ordinary file still runs without asking");
  } finally {
    off();
  }
}

describe("attack: code an -e extension loads beyond its own path", () => {
  test("the module a folder extension's index imports from outside the folder, and the index.cjs an optional import('./opt') resolves to, are control writes", async () => {
    const paths = ["exts/shared/x.ts", "exts/opt/index.cjs", "exts/opt.ts", "exts/opt/package.json", "exts/folder-ext/lib.ts"];
    await expectAsked(project, paths, (path) => path.endsWith(".cjs"), "cli-import");
    await server.main.request("thread/start", { cwd: project, approvalMode: "autoEdit" });
    assert.deepEqual(
      readdirSync(markers).filter((name) => name.startsWith("cli-import")),
      [],
      "no payload reached the server",
    );
  });
});

const git = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, encoding: "utf8" });

/** A repository set up as husky v9 does: hooksPath `.husky/_`, stubs that run `.husky/<hook>` through `_/h`. */
function huskyRepository(): string {
  const repo = server.project({ "README.md": "readme\n", "scripts/lint.sh": "true\n" });
  git(repo, "init", "-q");
  writeTree(repo, {
    ".husky/_/h": `#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n`,
    ".husky/_/pre-commit": `#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n`,
    ".husky/_/husky.sh": "true\n",
  });
  git(repo, "config", "core.hooksPath", ".husky/_");
  return repo;
}

/** A repository set up as husky v8 does: hooksPath `.husky`, hooks that source `_/husky.sh` and a script of the project. */
function huskyEightRepository(): string {
  const repo = server.project({
    "README.md": "readme\n",
    ".husky/pre-commit": `#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\n. "$(dirname -- "$0")/../tools/common.sh"\n`,
    ".husky/_/husky.sh": "true\n",
    "tools/common.sh": "true\n",
  });
  git(repo, "init", "-q");
  writeTree(repo, { ".git/info/keep": "" });
  git(repo, "config", "core.hooksPath", ".husky");
  return repo;
}

const shellPayload = (marker: string): string => `#!/bin/sh\ntouch ${JSON.stringify(marker)}\n`;

describe("attack: hooks a repository names with core.hooksPath", () => {
  test("husky v9: writes to the user's hook, to the stub folder and to its runner are asked in autoEdit, and the next commit runs none of the model's code", async () => {
    const repo = huskyRepository();
    const { asked, off } = approver(server.main, () => ({ decision: "decline" }));
    try {
      const thread = (await server.main.request("thread/start", { cwd: repo, approvalMode: "autoEdit" })).thread;
      for (const [index, path] of [".husky/pre-commit", ".husky/_/h", ".husky/_/post-commit", ".husky/_/husky.sh"].entries()) {
        const before: number = asked.length;
        const write = call("write", { path, content: shellPayload(join(markers, `husky9-${index}`)) });
        assert.equal((await toolTurn(server.main, thread.id, [write])).get(write.id), "declined", path);
        assert.equal(asked.length, before + 1, `${path} is asked about`);
        assert.match(asked.at(-1)!.reason ?? "", /hook/, path);
        assert.deepEqual(asked.at(-1)!.decisions, ["accept", "decline", "cancel"]);
      }
      git(repo, "add", "README.md");
      git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x");
      assert.deepEqual(
        readdirSync(markers).filter((name) => name.startsWith("husky9-")),
        [],
        "no hook of the model's ran",
      );
    } finally {
      off();
    }
  });

  test("husky v8: the hooks folder and the files its hooks source from elsewhere in the project are control paths", async () => {
    const repo = huskyEightRepository();
    await expectAsked(repo, [".husky/pre-push", ".husky/_/husky.sh", "tools/common.sh"], () => false, "husky8");
    git(repo, "add", "README.md");
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x");
    assert.deepEqual(
      readdirSync(markers).filter((name) => name.startsWith("husky8-")),
      [],
    );
    assert.equal(existsSync(join(repo, "tools", "common.sh")), true);
  });
});
