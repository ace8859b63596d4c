import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, waitUntil, type TestClient, type TestServer } from "../support/harness.js";
import { committedRepoWithThread, failsWith, makeRepo, SERVER_GIT_ENV, withKeylessProvider, type Repo } from "./git-repos.js";

const TOKEN = "commit-message-test-token-0123456789";

let model: ScriptedModelServer;
let server: TestServer;
let ws: TestClient;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ modelsJson: withKeylessProvider(model), env: SERVER_GIT_ENV, args: ["--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN] });
  const url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  ws = await server.connectWebSocket(url, TOKEN);
  await ws.initialize();
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
});

const repoWithThread = (provider = "scripted") =>
  committedRepoWithThread(server, { "greet.ts": "export const greet = () => 'hi';\n", "notes.md": "# notes\n" }, provider);

/** What a user sees of a repository: HEAD, the index file's bytes and time, and the status (read last: git status may refresh the index). */
function snapshot(repo: Repo): { head: string; index: Buffer; indexTime: number; status: () => string } {
  const indexPath = join(repo.root, ".git", "index");
  return {
    head: repo.git("rev-parse", "HEAD").trim(),
    index: readFileSync(indexPath),
    indexTime: statSync(indexPath).mtimeMs,
    status: () => repo.git("status", "--porcelain"),
  };
}

/** The text the model was sent in one request, all messages joined. */
function sentText(body: Record<string, any>): string {
  return (body.messages as { content: unknown }[]).map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
}

describe("git/commit/message", () => {
  test("answers the model's message and changes nothing: HEAD, the index file and the status stay", async () => {
    const { repo, threadId } = await repoWithThread();
    repo.write("greet.ts", "export const greet = () => 'hello';\n");
    repo.write("docs/new.md", "# new\n");
    const statusBefore = repo.git("status", "--porcelain");
    const before = snapshot(repo);
    model.enqueue({ text: "```\nfeat: say hello\n\nAdds the docs page.\n```" });
    const mark = server.main.notifications.length;
    const result = await server.main.request("git/commit/message", { threadId });
    assert.deepEqual(result, { message: "feat: say hello\n\nAdds the docs page." });

    const afterwards = snapshot(repo);
    assert.equal(afterwards.head, before.head);
    assert.ok(afterwards.index.equals(before.index), "the index file's bytes changed");
    assert.equal(afterwards.indexTime, before.indexTime, "the index file was written");
    assert.equal(afterwards.status(), statusBefore);
    const seen = server.main.notifications.slice(mark).map((n) => n.method);
    assert.deepEqual(
      seen.filter((method) => /^(item|turn)\/|tokenUsage/.test(method)),
      [],
    );
    const resumed = await server.main.request("thread/resume", { threadId });
    assert.deepEqual(resumed.turns, []);
    assert.equal(resumed.usage.input, 0);
    server.assertNoSchemaViolations();
  });

  test("includeUnstaged false shows the model only the staged change; by default every change", async () => {
    const { repo, threadId } = await repoWithThread();
    repo.write("greet.ts", "export const greet = () => 'staged hello';\n");
    repo.git("add", "greet.ts");
    repo.write("notes.md", "# notes, not staged\n");
    repo.write("loose.txt", "untracked\n");

    model.enqueue({ text: "fix: staged hello" });
    let count = model.requests.length + 1;
    assert.equal((await server.main.request("git/commit/message", { threadId, includeUnstaged: false })).message, "fix: staged hello");
    const staged = sentText((await model.waitForRequests(count))[count - 1]!.body);
    assert.match(staged, /\+export const greet = \(\) => 'staged hello';/);
    assert.doesNotMatch(staged, /not staged|loose\.txt/);

    model.enqueue({ text: "chore: everything" });
    count += 1;
    await server.main.request("git/commit/message", { threadId });
    const every = sentText((await model.waitForRequests(count))[count - 1]!.body);
    assert.match(every, /staged hello/);
    assert.match(every, /notes, not staged/);
    assert.match(every, /loose\.txt/);
    assert.equal(repo.git("status", "--porcelain"), "M  greet.ts\n M notes.md\n?? loose.txt\n");
  });

  test("nothing to commit is invalidParams, and the model is not asked", async () => {
    const { repo, threadId } = await repoWithThread();
    const requestsBefore = model.requests.length;
    await failsWith(server.main.request("git/commit/message", { threadId }), "invalidParams");
    repo.write("greet.ts", "unstaged\n");
    await failsWith(server.main.request("git/commit/message", { threadId, includeUnstaged: false }), "invalidParams");
    assert.equal(model.requests.length, requestsBefore);
  });

  test("a model without a credential is authRequired, with nothing asked; the model failing is internal", async () => {
    const keyless = await repoWithThread("keyless");
    keyless.repo.write("greet.ts", "changed\n");
    const requestsBefore = model.requests.length;
    await failsWith(server.main.request("git/commit/message", { threadId: keyless.threadId }), "authRequired");
    assert.equal(model.requests.length, requestsBefore);

    const { repo, threadId } = await repoWithThread();
    repo.write("greet.ts", "changed\n");
    model.enqueue({ status: 500, body: { error: { message: "model down" } } });
    await failsWith(server.main.request("git/commit/message", { threadId }), "internal");
    assert.equal(repo.git("status", "--porcelain"), " M greet.ts\n");
  });

  test("a thread with no usable model is invalidParams noModel; outside a repository notGitRepo", async () => {
    const lone = await startServer({ modelsJson: { providers: {} }, env: SERVER_GIT_ENV });
    try {
      const repo = makeRepo(lone);
      repo.commit("base", { "a.txt": "a\n" });
      repo.write("a.txt", "b\n");
      const { thread } = await lone.main.request("thread/start", { cwd: repo.root });
      assert.equal(thread.model, null);
      await failsWith(lone.main.request("git/commit/message", { threadId: thread.id }), "invalidParams", "noModel");
      const { thread: outside } = await lone.main.request("thread/start", { cwd: lone.project() });
      await failsWith(lone.main.request("git/commit/message", { threadId: outside.id }), "notGitRepo");
    } finally {
      await lone.close();
    }
  });

  test("the connection closing while the model writes cancels the model's request", async () => {
    const { repo, threadId } = await repoWithThread();
    repo.write("greet.ts", "export const greet = () => 'bye';\n");
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    model.enqueue({ text: ["fix: ", "say bye"], pauseAfter: 1, gate });
    const count = model.requests.length + 1;
    const asked = ws.client.request("git/commit/message", { threadId });
    asked.catch(() => undefined);
    const recorded = (await model.waitForRequests(count))[count - 1]!;
    void ws.client.close();
    try {
      await waitUntil("the model's request to be cancelled", () => recorded.abortedAt !== undefined || undefined, 10_000);
    } finally {
      release();
    }
  });
});
