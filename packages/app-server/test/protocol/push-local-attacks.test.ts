import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import { execFileSync } from "node:child_process";
import { startServer, type TestServer } from "../support/harness.js";
import { answerDialogs, type DialogParams } from "../support/tool-turns.js";
import { failsWith, gitEnv, makeRepo, SERVER_GIT_ENV, type Repo } from "./git-repos.js";

/**
 * A push to a repository on this machine runs `git receive-pack` there,
 * which runs that repository's hooks and commands its config names. A
 * prompt-injected model that plants a bare repository in the working tree
 * and adds it as a remote (or a repository it already finds there) would
 * turn the user's Push button into its own code. The proof of harm is a
 * marker any of those hooks writes.
 */

let server: TestServer;
let markers: string;

before(async () => {
  server = await startServer({ env: SERVER_GIT_ENV });
  markers = mkdtempSync(join(tmpdir(), "kc-push-markers-"));
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  rmSync(markers, { recursive: true, force: true });
});

const RECEIVING_HOOKS = ["pre-receive", "update", "post-receive", "post-update", "reference-transaction", "proc-receive", "push-to-checkout"];

/**
 * A bare repository inside the working tree whose hooks, hooks in the
 * folder its own config names with core.hooksPath, and
 * core.alternateRefsCommand each leave a marker.
 */
function plantReceiver(repo: Repo, tag: string): string {
  const path = join(repo.root, ".cache", `${tag}.git`);
  mkdirSync(path, { recursive: true });
  const git = (...args: string[]) => execFileSync("git", ["-C", path, ...args], { env: gitEnv(server.home), stdio: "ignore" });
  git("init", "-q", "--bare");
  const alternate = join(server.home, `${tag}-alternate.git`);
  execFileSync("git", ["init", "-q", "--bare", alternate], { env: gitEnv(server.home), stdio: "ignore" });
  writeFileSync(join(path, "objects", "info", "alternates"), `${join(alternate, "objects")}\n`);
  git("config", "core.alternateRefsCommand", `touch ${join(markers, `${tag}-alternate-refs`)}; true`);
  mkdirSync(join(path, "own-hooks"));
  git("config", "core.hooksPath", "own-hooks");
  for (const folder of ["hooks", "own-hooks"]) {
    for (const hook of RECEIVING_HOOKS)
      writeFileSync(join(path, folder, hook), `#!/bin/sh\ntouch ${join(markers, `${tag}-${folder}-${hook}`)}\n`, { mode: 0o755 });
  }
  return path;
}

const dialogs = (answer: (params: DialogParams) => Record<string, unknown>) => answerDialogs(server.main, answer);

async function repoWithThread(): Promise<{ repo: Repo; threadId: string }> {
  const repo = makeRepo(server);
  repo.commit("base", { "a.txt": "a\n" });
  return { repo, threadId: (await server.main.request("thread/start", { cwd: repo.root })).thread.id };
}

const branchesOf = (bare: string): string =>
  execFileSync("git", ["-C", bare, "branch", "--format=%(refname:short)"], { env: gitEnv(server.home), encoding: "utf8" }).trim();
const ran = (tag: string): string[] => readdirSync(markers).filter((name) => name.startsWith(`${tag}-`));

describe("attack: a push into a repository planted in the working tree", () => {
  test("a declined confirmation pushes nothing; a confirmed one delivers the branch and runs none of the receiving side's hooks or commands", async () => {
    const { repo, threadId } = await repoWithThread();
    const receiver = plantReceiver(repo, "inside");
    repo.git("remote", "add", "origin", "./.cache/inside.git");
    const declined = dialogs(() => ({}));
    try {
      const data = await failsWith(server.main.request("git/push", { threadId }), "invalidParams", "notConfirmed");
      assert.equal(typeof data.reason, "string");
      assert.equal(declined.asked.length, 1, "the user is asked before the push");
      const [params] = declined.asked;
      assert.equal(params!.kind, "confirm");
      assert.equal(params!.threadId, threadId);
      assert.match(params!.title, /folder on this machine/i);
      const message = (params as { message?: string }).message ?? "";
      assert.ok(message.includes(receiver), `the folder is named: ${message}`);
      assert.match(message, /inside/i, "the message says the folder is inside the working tree");
    } finally {
      declined.off();
    }
    assert.equal(branchesOf(receiver), "", "nothing arrived");
    assert.throws(() => repo.git("config", "--get", "branch.main.remote"), "no upstream was set");
    assert.deepEqual(ran("inside"), []);

    const confirmed = dialogs(() => ({ confirmed: true }));
    try {
      assert.deepEqual(await server.main.request("git/push", { threadId }), { remote: "origin", branch: "main", pushedTo: "origin/main", upstreamSet: true });
      assert.equal(confirmed.asked.length, 1);
    } finally {
      confirmed.off();
    }
    assert.equal(branchesOf(receiver), "main", "the branch arrived");
    assert.deepEqual(ran("inside"), [], "no hook or command of the receiving repository ran");
  });

  test("a file:// remote is a folder too, and with nobody to ask the push is refused", async () => {
    const { repo, threadId } = await repoWithThread();
    const receiver = plantReceiver(repo, "fileurl");
    repo.git("remote", "add", "origin", pathToFileURL(receiver).href);
    const confirmed = dialogs(() => ({ confirmed: true }));
    try {
      await server.main.request("git/push", { threadId });
      assert.equal(confirmed.asked.length, 1);
    } finally {
      confirmed.off();
    }
    assert.equal(branchesOf(receiver), "main");
    assert.deepEqual(ran("fileurl"), []);
    await server.main.request("thread/unsubscribe", { threadId });
    repo.commit("two", { "a.txt": "2\n" });
    await failsWith(server.main.request("git/push", { threadId }), "invalidParams", "notConfirmed");
    assert.notEqual(
      execFileSync("git", ["-C", receiver, "rev-parse", "main"], { env: gitEnv(server.home), encoding: "utf8" }).trim(),
      repo.git("rev-parse", "HEAD").trim(),
    );
  });

  test("a remote on a network transport is not asked about", async () => {
    const { repo, threadId } = await repoWithThread();
    repo.git("remote", "add", "origin", "http://127.0.0.1:9/nowhere.git");
    const asked = dialogs(() => ({ confirmed: true }));
    try {
      await assert.rejects(server.main.request("git/push", { threadId }));
      assert.equal(asked.asked.length, 0);
    } finally {
      asked.off();
    }
    assert.equal(existsSync(join(repo.root, ".cache")), false);
  });
});
