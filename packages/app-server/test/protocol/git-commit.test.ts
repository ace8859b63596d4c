import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, type TestServer } from "../support/harness.js";
import { committedRepoWithThread, failsWith, SERVER_GIT_ENV, withKeylessProvider, type Repo } from "./git-repos.js";

/** What the message request bills: it would show in the thread's usage if it were counted there. */
const MESSAGE_INPUT_TOKENS = 50_000;

let model: ScriptedModelServer;
let server: TestServer;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ modelsJson: withKeylessProvider(model), env: SERVER_GIT_ENV });
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
});

const repoWithThread = (provider = "scripted") => committedRepoWithThread(server, { "greet.ts": "export const greet = () => 'hi';\n" }, provider);

const head = (repo: Repo) => repo.git("rev-parse", "HEAD").trim();

/** The text the model was sent in one request, all messages joined. */
function sentText(body: Record<string, any>): string {
  return (body.messages as { content: unknown }[]).map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
}

describe("git/commit", () => {
  test("with a message: everything staged and committed, the user's hooks running", async () => {
    const { repo, threadId } = await repoWithThread();
    writeFileSync(join(repo.root, ".git", "hooks", "pre-commit"), '#!/bin/sh\ntouch "$(git rev-parse --git-dir)/pre-commit-ran"\n', { mode: 0o755 });
    writeFileSync(join(repo.root, ".git", "hooks", "commit-msg"), "#!/bin/sh\nprintf '\\nHooked: yes\\n' >> \"$1\"\n", { mode: 0o755 });
    repo.write("greet.ts", "export const greet = () => 'hello';\n");
    repo.write("docs/new.md", "# new\n");
    const result = await server.main.request("git/commit", { threadId, message: "feat: say hello" });
    assert.equal(result.sha, head(repo));
    assert.equal(result.generated, false);
    assert.equal(result.message, "feat: say hello\n\nHooked: yes");
    assert.ok(existsSync(join(repo.root, ".git", "pre-commit-ran")), "the pre-commit hook did not run");
    assert.equal(repo.git("status", "--porcelain"), "");
    server.assertNoSchemaViolations();
  });

  test("a hook that refuses: nothing committed, its output in data.output", async () => {
    const { repo, threadId } = await repoWithThread();
    const before = head(repo);
    writeFileSync(join(repo.root, ".git", "hooks", "pre-commit"), "#!/bin/sh\necho 'lint: 3 problems' >&2\nexit 1\n", { mode: 0o755 });
    repo.write("greet.ts", "broken\n");
    const data = await failsWith(server.main.request("git/commit", { threadId, message: "fix: x" }), "internal");
    assert.match(String(data.output), /lint: 3 problems/);
    assert.equal(head(repo), before);
  });

  test("nothing to commit is invalidParams; includeUnstaged false commits only what is staged", async () => {
    const { repo, threadId } = await repoWithThread();
    await failsWith(server.main.request("git/commit", { threadId, message: "chore: nothing" }), "invalidParams");
    repo.write("greet.ts", "unstaged\n");
    await failsWith(server.main.request("git/commit", { threadId, message: "chore: nothing", includeUnstaged: false }), "invalidParams");
    repo.write("staged.txt", "s\n");
    repo.git("add", "staged.txt");
    await server.main.request("git/commit", { threadId, message: "chore: staged only", includeUnstaged: false });
    assert.equal(repo.git("status", "--porcelain").trim(), "M greet.ts");
  });

  test("without a message the thread's model writes it from the change, outside the conversation", async () => {
    const { repo, threadId } = await repoWithThread();
    repo.write("greet.ts", "export const greet = () => 'hello, world';\n");
    model.enqueue({ text: "```\nfeat: greet the whole world\n\nWidens the greeting.\n```", usage: { input: MESSAGE_INPUT_TOKENS } });
    const requestsBefore = model.requests.length;
    const mark = server.main.notifications.length;
    const result = await server.main.request("git/commit", { threadId });
    assert.equal(result.generated, true);
    assert.equal(result.message, "feat: greet the whole world\n\nWidens the greeting.");
    assert.equal(repo.git("log", "-1", "--format=%B").trim(), result.message);

    const sent = model.requests.slice(requestsBefore);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.body.model, "scripted-model");
    const text = sentText(sent[0]!.body);
    assert.match(text, /\+export const greet = \(\) => 'hello, world';/);
    assert.match(text, /-export const greet = \(\) => 'hi';/);
    assert.match(text, /commit message/i);

    const seen = server.main.notifications.slice(mark).map((n) => n.method);
    assert.deepEqual(
      seen.filter((method) => /^(item|turn)\/|tokenUsage/.test(method)),
      [],
      `the thread's subscribers saw ${seen.join(", ")}`,
    );
    const resumed = await server.main.request("thread/resume", { threadId });
    assert.deepEqual(resumed.turns, []);
    assert.equal(resumed.usage.input, 0);
    server.assertNoSchemaViolations();
  });

  test("the change staged while the model writes the message: concurrentChange, nothing committed", async () => {
    const { repo, threadId } = await repoWithThread();
    const before = head(repo);
    repo.write("greet.ts", "export const greet = () => 'hey';\n");
    repo.git("add", "greet.ts");
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    model.enqueue({ text: ["fix: ", "say hey"], pauseAfter: 1, gate });
    const count = model.requests.length + 1;
    const committing = server.main.request("git/commit", { threadId, includeUnstaged: false });
    committing.catch(() => undefined);
    await model.waitForRequests(count);
    repo.write("sneaked.txt", "staged meanwhile\n");
    repo.git("add", "sneaked.txt");
    release();
    const data = await failsWith(committing, "gitConflict", "concurrentChange");
    assert.deepEqual(data.paths, ["sneaked.txt"]);
    assert.equal(typeof data.recoveryInstructions, "string");
    assert.equal(head(repo), before);
  });

  test("a thread whose model has no credential: authRequired, nothing committed or asked", async () => {
    const { repo, threadId } = await repoWithThread("keyless");
    const before = head(repo);
    repo.write("greet.ts", "changed\n");
    const requestsBefore = model.requests.length;
    await failsWith(server.main.request("git/commit", { threadId }), "authRequired");
    assert.equal(model.requests.length, requestsBefore);
    assert.equal(head(repo), before);
    assert.equal(repo.git("status", "--porcelain").trim(), "M greet.ts");
  });

  test("the model failing: internal, nothing committed or staged", async () => {
    const { repo, threadId } = await repoWithThread();
    const before = head(repo);
    repo.write("new.txt", "n\n");
    model.enqueue({ status: 500, body: { error: { message: "model down" } } });
    const data = await failsWith(server.main.request("git/commit", { threadId }), "internal");
    assert.equal(data.output, undefined);
    assert.equal(head(repo), before);
    assert.equal(repo.git("status", "--porcelain").trim(), "?? new.txt");
  });
});
