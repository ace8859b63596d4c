import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppServerError } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, waitUntil, type TestServer } from "../support/harness.js";
import { answerDialogs, type DialogParams } from "../support/tool-turns.js";
import { SERVER_GIT_ENV, git, initRepo, status, write } from "../support/worktree-git.js";

/**
 * A worktree thread runs where the project's code is not loaded: its
 * writes ask nothing in autoEdit. A handoff to the user's checkout then
 * carries them where the trusted settings load them into the server, and
 * where git runs the hooks. The proof of harm is a marker the payload
 * writes when a thread loads in the checkout.
 */

let model: ScriptedModelServer;
let server: TestServer;
let markers: string;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model, env: SERVER_GIT_ENV });
  markers = mkdtempSync(join(tmpdir(), "kc-handoff-markers-"));
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
  rmSync(markers, { recursive: true, force: true });
});

const payload = (marker: string): string =>
  `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nexport const helper = 1;\n`;

let projects = 0;
/** A trusted project whose settings load tools/ext.ts, which imports tools/helper.ts; husky's hooks folder too. */
async function trustedProject(): Promise<string> {
  const repo = initRepo(join(server.home, `handoff-control-${++projects}`, "project"), {
    "README.md": "hello\n",
    ".knightcode/settings.json": JSON.stringify({ extensions: ["../tools/ext.ts"] }),
    "tools/ext.ts": `import { helper } from "./helper.ts";\nexport default function () { return helper; }\n`,
    "tools/helper.ts": "export const helper = 1;\n",
    ".husky/pre-commit": "true\n",
  });
  git(repo, "config", "core.hooksPath", ".husky");
  await server.main.request("project/trust/set", { cwd: repo, trusted: true });
  return repo;
}

async function talk(threadId: string): Promise<void> {
  model.enqueue({ text: "ok" });
  const done = () => server.main.notificationsOf("turn/completed").filter((p) => p.threadId === threadId).length;
  const before = done();
  await server.main.request("turn/start", { threadId, text: "hello" });
  await waitUntil("the turn completes", () => done() > before);
}

const dialogs = (answer: (params: DialogParams) => Record<string, unknown>) => answerDialogs(server.main, answer);

describe("attack: a handoff carries code into the checkout the settings load", () => {
  test("declined: the handoff is refused naming the files, and both sides stay exactly as they were", async () => {
    const repo = await trustedProject();
    const { thread } = await server.main.request("thread/start", { cwd: repo, approvalMode: "autoEdit", workspace: { mode: "worktree" } });
    await talk(thread.id);
    const worktree = thread.workspace.path!;
    git(worktree, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "--allow-empty", "-m", "work");
    const marker = join(markers, "declined");
    write(worktree, { "tools/helper.ts": payload(marker), ".husky/pre-push": "touch /tmp/never\n", "src/fine.ts": "export {};\n" });
    const checkout = { head: git(repo, "rev-parse", "HEAD").trim(), branch: git(repo, "symbolic-ref", "--short", "HEAD").trim() };
    const worktreeState = { head: git(worktree, "rev-parse", "HEAD").trim(), status: status(worktree) };

    const declined = dialogs(() => ({}));
    let refused: AppServerError | undefined;
    try {
      await server.main.request("thread/handoff", { threadId: thread.id, to: "local" });
    } catch (error) {
      refused = error as AppServerError;
    } finally {
      declined.off();
    }
    assert.ok(refused instanceof AppServerError, "the handoff was refused");
    assert.equal(refused.code, "invalidParams");
    assert.equal(refused.data?.reason, "controlPaths");
    assert.deepEqual([...((refused.data?.paths as string[]) ?? [])].sort(), [".husky/pre-push", "tools/helper.ts"]);
    assert.equal(declined.asked.length, 1);
    assert.equal(declined.asked[0]!.kind, "confirm");
    const message = (declined.asked[0] as { message?: string }).message ?? "";
    assert.ok(message.includes("tools/helper.ts") && message.includes(".husky/pre-push"), message);

    assert.equal(git(repo, "rev-parse", "HEAD").trim(), checkout.head, "the checkout's HEAD did not move");
    assert.equal(git(repo, "symbolic-ref", "--short", "HEAD").trim(), checkout.branch);
    assert.equal(status(repo), "", "nothing landed in the checkout");
    assert.equal(readFileSync(join(repo, "tools", "helper.ts"), "utf8"), "export const helper = 1;\n");
    assert.equal(git(worktree, "rev-parse", "HEAD").trim(), worktreeState.head);
    assert.equal(status(worktree), worktreeState.status, "the worktree keeps its changes");
    const handoffDir = join(server.agentDir, "handoff");
    assert.deepEqual(existsSync(handoffDir) ? readdirSync(handoffDir) : [], [], "no patch was saved");
    assert.equal((await server.main.request("thread/read", { threadId: thread.id })).thread.workspace.mode, "worktree");

    await server.main.request("thread/start", { cwd: repo });
    assert.equal(existsSync(marker), false, "no thread in the checkout loaded the model's code");
  });

  test("confirmed: the same handoff goes through; a handoff of ordinary files asks nothing", async () => {
    const repo = await trustedProject();
    const { thread } = await server.main.request("thread/start", { cwd: repo, approvalMode: "autoEdit", workspace: { mode: "worktree" } });
    await talk(thread.id);
    const worktree = thread.workspace.path!;
    git(worktree, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "--allow-empty", "-m", "work");
    write(worktree, { "tools/ext.ts": "export default function () {}\n" });
    const confirmed = dialogs(() => ({ confirmed: true }));
    try {
      await server.main.request("thread/handoff", { threadId: thread.id, to: "local" });
      assert.equal(confirmed.asked.length, 1);
      assert.equal(readFileSync(join(repo, "tools", "ext.ts"), "utf8"), "export default function () {}\n");
      git(repo, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "-am", "the user keeps it");
      const back = await server.main.request("thread/handoff", { threadId: thread.id, to: "worktree" });
      write(back.thread.workspace.path!, { "src/plain.ts": "export {};\n" });
      await server.main.request("thread/handoff", { threadId: thread.id, to: "local" });
      assert.equal(confirmed.asked.length, 1, "ordinary files move without a question");
      assert.equal(existsSync(join(repo, "src", "plain.ts")), true);
    } finally {
      confirmed.off();
    }
  });
});
