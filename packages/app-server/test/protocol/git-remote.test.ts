import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { execFileSync } from "node:child_process";
import { startServer, type TestServer } from "../support/harness.js";
import { failsWith, gitEnv, makeRepo, SERVER_GIT_ENV, type Repo } from "./git-repos.js";

/**
 * A `gh` that records each call (its folder, then its arguments, NUL
 * separated, one record per call) and answers as a signed-in gh would,
 * unless a `signed-out` file lies beside it.
 */
const GH_STANDIN = `#!/bin/sh
here=$(dirname "$0")
{ printf '%s\\0' "$(pwd)" "$@"; printf '\\036'; } >> "$here/calls"
if [ "$1" = auth ]; then
  if [ -e "$here/signed-out" ]; then
    echo "You are not logged into any GitHub hosts. To log in, run: gh auth login" >&2
    exit 1
  fi
  echo "github.com: Logged in to github.com account tess"
  exit 0
fi
echo "Creating pull request into main in acme/widgets"
echo
echo "https://github.com/acme/widgets/pull/42"
`;

let server: TestServer;
let ghDir: string;
/** Answers every request 401, as a forge does to a push without credentials. */
let forge: Server;

before(async () => {
  server = await startServer({ env: SERVER_GIT_ENV });
  // The remotes here are bare repositories on this machine: the user says yes to each push there.
  server.main.client.onRequest("ui/dialog", (params) => (params.kind === "confirm" ? { confirmed: true } : {}));
  // The server's PATH is read when it starts: a second server gets the stand-in first on its PATH.
  ghDir = join(server.home, "gh-bin");
  mkdirSync(ghDir);
  writeFileSync(join(ghDir, "gh"), GH_STANDIN, { mode: 0o755 });
  forge = createServer((_request, response) => response.writeHead(401, { "www-authenticate": 'Basic realm="forge"' }).end("no"));
  await new Promise<void>((resolve) => forge.listen(0, "127.0.0.1", resolve));
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await new Promise<void>((resolve) => forge.close(() => resolve()));
});

async function threadIn(target: TestServer, cwd: string): Promise<string> {
  return (await target.main.request("thread/start", { cwd })).thread.id;
}

/** A repository with one commit and a bare remote as origin, and a thread in it. */
async function withRemote(target: TestServer = server): Promise<{ repo: Repo; remote: Repo; threadId: string }> {
  const remote = makeRepo(target, { bare: true });
  const repo = makeRepo(target);
  repo.commit("base", { "a.txt": "a\n" });
  repo.git("remote", "add", "origin", remote.root);
  return { repo, remote, threadId: await threadIn(target, repo.root) };
}

describe("git/push", () => {
  test("the first push sets the upstream, the next one leaves it; the remote gets exactly the branch", async () => {
    const { repo, remote, threadId } = await withRemote();
    // A configuration that would send tags along with any push.
    repo.git("config", "push.followTags", "true");
    repo.git("tag", "-a", "v1", "-m", "v1");
    // The user's hooks run for commits only: a pre-push hook that refuses would stop a terminal's push, not this one.
    writeFileSync(join(repo.root, ".git", "hooks", "pre-push"), '#!/bin/sh\ntouch "$(git rev-parse --git-dir)/pre-push-ran"\nexit 1\n', { mode: 0o755 });
    assert.deepEqual(await server.main.request("git/push", { threadId }), { remote: "origin", branch: "main", pushedTo: "origin/main", upstreamSet: true });
    assert.equal(remote.git("rev-parse", "main").trim(), repo.git("rev-parse", "HEAD").trim());
    assert.equal(repo.git("rev-parse", "--abbrev-ref", "main@{upstream}").trim(), "origin/main");
    assert.equal(remote.git("tag").trim(), "", "a tag went along");
    assert.equal(existsSync(join(repo.root, ".git", "pre-push-ran")), false, "the pre-push hook ran");

    repo.commit("two", { "a.txt": "2\n" });
    assert.deepEqual(await server.main.request("git/push", { threadId }), { remote: "origin", branch: "main", pushedTo: "origin/main", upstreamSet: false });
    assert.equal(remote.git("rev-parse", "main").trim(), repo.git("rev-parse", "HEAD").trim());
    assert.equal((await server.main.request("git/status", { threadId })).ahead, 0);
    server.assertNoSchemaViolations();
  });

  test("pushes to the upstream's branch name; a push the remote refuses is pushRejected with git's output", async () => {
    const { repo, remote, threadId } = await withRemote();
    repo.git("switch", "-q", "-c", "feature");
    repo.git("push", "-q", "-u", "origin", "feature:shared-name");
    repo.commit("mine", { "a.txt": "mine\n" });
    assert.deepEqual(await server.main.request("git/push", { threadId }), {
      remote: "origin",
      branch: "feature",
      pushedTo: "origin/shared-name",
      upstreamSet: false,
    });
    assert.equal(remote.git("rev-parse", "shared-name").trim(), repo.git("rev-parse", "HEAD").trim());

    // Someone else moves the remote branch on.
    const other = join(server.home, `clone-${Date.now()}`);
    execFileSync("git", ["clone", "-q", "-b", "shared-name", remote.root, other], { env: gitEnv(server.home) });
    const inOther = (...args: string[]) =>
      execFileSync("git", ["-C", other, "-c", "user.name=O", "-c", "user.email=o@example.com", ...args], { env: gitEnv(server.home), encoding: "utf8" });
    writeFileSync(join(other, "theirs.txt"), "theirs\n");
    inOther("add", "theirs.txt");
    inOther("commit", "-q", "-m", "theirs");
    inOther("push", "-q", "origin", "shared-name");
    const theirs = inOther("rev-parse", "HEAD").trim();

    repo.commit("mine again", { "a.txt": "again\n" });
    const data = await failsWith(server.main.request("git/push", { threadId }), "gitConflict", "pushRejected");
    assert.match(String(data.output), /rejected|non-fast-forward|fetch first/);
    assert.equal(typeof data.recoveryInstructions, "string");
    assert.equal(remote.git("rev-parse", "shared-name").trim(), theirs, "the push forced the remote");
    server.assertNoSchemaViolations();
  });

  test("a detached HEAD, an unknown remote: invalidParams; a remote asking for credentials: authRequired", async () => {
    const { repo, threadId } = await withRemote();
    await failsWith(server.main.request("git/push", { threadId, remote: "nowhere" }), "invalidParams");
    repo.git("remote", "add", "forge", `http://127.0.0.1:${(forge.address() as AddressInfo).port}/acme/widgets.git`);
    await failsWith(server.main.request("git/push", { threadId, remote: "forge" }), "authRequired");
    repo.git("checkout", "-q", "--detach");
    await failsWith(server.main.request("git/push", { threadId }), "invalidParams");
  });
});

describe("git/pr/create", () => {
  test("runs gh with an argument array in the checkout, after checking it is signed in; the URL is gh's last line", async () => {
    const withGh = await startServer({ env: { ...SERVER_GIT_ENV, PATH: `${ghDir}:${process.env.PATH ?? ""}` } });
    try {
      const { repo, threadId } = await withRemote(withGh);
      repo.git("switch", "-q", "-c", "feature");
      const calls = () =>
        readFileSync(join(ghDir, "calls"), "utf8")
          .split("\x1e")
          .filter((record) => record !== "")
          .map((record) => record.split("\0").slice(0, -1));
      rmSync(join(ghDir, "calls"), { force: true });

      const title = `-fix: it's "quoted" $(touch ${join(repo.root, "pwned")}) & more`;
      const body = "Line one\n\nLine `two`";
      const result = await withGh.main.request("git/pr/create", { threadId, title, body, draft: true, base: "main" });
      assert.deepEqual(result, { url: "https://github.com/acme/widgets/pull/42" });
      assert.deepEqual(calls(), [
        [repo.root, "auth", "status"],
        [repo.root, "pr", "create", "--head=feature", `--title=${title}`, `--body=${body}`, "--draft", "--base=main"],
      ]);
      assert.throws(() => readFileSync(join(repo.root, "pwned")), "a shell ran the title");

      rmSync(join(ghDir, "calls"), { force: true });
      await withGh.main.request("git/pr/create", { threadId });
      assert.deepEqual(calls()[1], [repo.root, "pr", "create", "--head=feature", "--fill"]);

      writeFileSync(join(ghDir, "signed-out"), "");
      rmSync(join(ghDir, "calls"), { force: true });
      await failsWith(withGh.main.request("git/pr/create", { threadId, title: "t" }), "authRequired");
      assert.equal(calls().length, 1, "gh pr create ran although gh is signed out");
      rmSync(join(ghDir, "signed-out"));

      repo.git("checkout", "-q", "--detach");
      await failsWith(withGh.main.request("git/pr/create", { threadId, title: "t" }), "invalidParams");
      withGh.assertNoSchemaViolations();
    } finally {
      await withGh.close();
    }
  });

  test("no gh on PATH: toolMissing", async () => {
    // A PATH with git and nothing else, so a gh installed on this machine is not found either.
    const gitOnly = join(server.home, "git-only-bin");
    mkdirSync(gitOnly, { recursive: true });
    symlinkSync(execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim(), join(gitOnly, "git"));
    const noGh = await startServer({ env: { ...SERVER_GIT_ENV, PATH: gitOnly } });
    try {
      const { repo, threadId } = await withRemote(noGh);
      repo.git("switch", "-q", "-c", "feature");
      const data = await failsWith(noGh.main.request("git/pr/create", { threadId }), "toolMissing");
      assert.equal(data.tool, "gh");
      noGh.assertNoSchemaViolations();
    } finally {
      await noGh.close();
    }
  });
});
