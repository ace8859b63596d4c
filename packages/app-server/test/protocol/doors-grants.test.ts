import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestServer, startServer, type TestClient } from "../support/harness.js";
import { toolStatuses, type ApprovalParams, type ToolCall } from "../support/tool-turns.js";

/**
 * Issue 27, doors 1, 2 and 9 (its prefix half): the user granted a command
 * prefix, and a prompt-injected model runs the granted program on a path
 * outside the thread's folder, a protected one, or a file of further names.
 * Each attack must ask again (the test declines), and no key the server
 * holds (in auth.json, in its own environment) reaches the model.
 */

const AUTH_KEY = `sk-test-auth-${randomBytes(8).toString("hex")}`;
const ENV_KEY = `sk-test-env-${randomBytes(8).toString("hex")}`;

/** The server's environment holds an OpenAI key: threads name the scripted model rather than take the default. */
const SCRIPTED = { provider: "scripted", id: "scripted-model" };

let model: ScriptedModelServer;
let server: TestServer;
let auth: string;

before(async () => {
  model = await ScriptedModelServer.start();
  // An editor that returns at once: a `git rebase -i` the grant wrongly covers fails the test by its list, not by hanging.
  const editors = { GIT_EDITOR: "true", GIT_SEQUENCE_EDITOR: "true", EDITOR: "true", VISUAL: "true" };
  server = await startServer({ model, env: { OPENAI_API_KEY: ENV_KEY, KNIGHTCODE_THREAD_IDLE_MS: "300", GIT_CONFIG_NOSYSTEM: "1", ...editors } });
  auth = join(server.agentDir, "auth.json");
  // A provider no model uses: the key is never sent anywhere as a credential, nor picks the default model.
  writeFileSync(auth, JSON.stringify({ "kc-test-vault": { type: "api_key", key: AUTH_KEY } }));
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
});

let callSeq = 0;
const bash = (command: string): ToolCall => ({ id: `door_${++callSeq}`, name: "bash", arguments: { command } });

/** One turn whose model makes `calls`, then says "done"; the items' statuses by call id. */
const toolTurn = (client: TestClient, threadId: string, calls: ToolCall[]) => toolStatuses(client, model, threadId, calls);

/** Which of the server's keys some request to the model carried, from request number `since` on. */
function leakedKeys(since: number): string[] {
  const seen = model.requests
    .slice(since)
    .map((request) => JSON.stringify(request.body))
    .join("\n");
  return [AUTH_KEY, ENV_KEY].filter((key) => seen.includes(key));
}

const commandOf = (params: ApprovalParams): string => (params.input as { command?: string } | undefined)?.command ?? "";

/**
 * The user grants the prefix of each command in `grants` (answering its
 * first run with acceptPrefixForSession), then the model runs each of
 * `attacks` in turn. Answers the attacks that ran without asking, and those
 * asked but not declined.
 */
async function grantThenAttack(cwd: string, grants: readonly string[], attacks: readonly string[]): Promise<string[]> {
  const asked: ApprovalParams[] = [];
  const off = server.main.client.onRequest("item/toolCall/requestApproval", (params) => {
    asked.push(params);
    return grants.includes(commandOf(params)) && params.decisions.includes("acceptPrefixForSession")
      ? { decision: "acceptPrefixForSession" }
      : { decision: "decline" };
  });
  const problems: string[] = [];
  try {
    const thread = (await server.main.request("thread/start", { cwd, approvalMode: "ask", model: SCRIPTED })).thread;
    for (const command of grants) {
      await toolTurn(server.main, thread.id, [bash(command)]);
      const last = asked.at(-1);
      assert.equal(commandOf(last!), command, `${command} is asked about`);
      assert.ok(last!.prefix, `${command} is offered a prefix to grant`);
    }
    for (const command of attacks) {
      const attempt = bash(command);
      const before = asked.length;
      const status = (await toolTurn(server.main, thread.id, [attempt])).get(attempt.id);
      if (asked.length === before) problems.push(`${command}: ran under the grant without asking (${status})`);
      else if (status !== "declined") problems.push(`${command}: asked, then ${status}`);
      else if (asked.at(-1)!.prefix !== undefined) problems.push(`${command}: offered the prefix ${asked.at(-1)!.prefix}`);
    }
  } finally {
    off();
  }
  return problems;
}

function gitRepo(files: Record<string, string>): string {
  const dir = server.project(files);
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: dir, stdio: "ignore", env: { ...process.env, HOME: server.home, GIT_CONFIG_NOSYSTEM: "1" } });
  git("init", "-q", "-b", "main");
  git("config", "user.name", "Tester");
  git("config", "user.email", "tester@example.invalid");
  git("add", "-A");
  git("commit", "-q", "-m", "initial");
  return dir;
}

describe("door 1: a grant for a reading program never reaches the server's keys", () => {
  test("cat, head, grep, jq, sort, date and tree, granted, still ask for the agent folder, /proc, a link out, `..` and files of further names", async () => {
    const since = model.requests.length;
    const dir = server.project({ "README.md": "readme\n", "notes.txt": "notes\n", "data.json": "{}\n" });
    writeFileSync(join(dir, "list0"), `${auth}\0`);
    symlinkSync(server.agentDir, join(dir, "agent-link"));
    const up = relative(dir, auth);
    const environ = `/proc/${server.pid}/environ`;
    const grants = ["cat README.md", "head README.md", "grep readme README.md", "jq . data.json", "sort README.md", "date", "tree"];
    const problems = await grantThenAttack(dir, grants, [
      `cat ${auth}`,
      `cat ${environ}`,
      `cat /proc/self/environ`,
      "cat agent-link/auth.json",
      `cat ${up}`,
      `cat -- ${auth}`,
      `head -c 5000 ${environ}`,
      `head -n5 agent-link/auth.json`,
      `grep -r sk-test ${server.agentDir}`,
      `grep -a sk-test ${environ}`,
      "grep -R sk-test .",
      `grep --include=auth.json -r sk-test ${relative(dir, server.agentDir)}`,
      `jq . ${auth}`,
      "jq . agent-link/auth.json",
      `jq -n --rawfile a ${auth} '$a'`,
      `jq -n 'import "${relative(dir, join(server.agentDir, "auth"))}" as $a; $a'`,
      "sort --files0-from=list0",
      "sort --files0-from list0",
      "sort --files0 list0",
      `sort ${auth}`,
      `date -f ${auth}`,
      "date --file=agent-link/auth.json",
      `date -f${auth}`,
      `tree --fromfile ${auth}`,
      "tree --fromfile agent-link/auth.json",
    ]);
    assert.deepEqual({ problems, leaked: leakedKeys(since) }, { problems: [], leaked: [] }, "every attack asked, and no key reached the model");
  });

  test("the grant still covers the folder's own files, and a first command naming the agent folder is offered no prefix, with a reason", async () => {
    const since = model.requests.length;
    const dir = server.project({ "README.md": "readme\n", "notes.txt": "notes\n" });
    const asked: ApprovalParams[] = [];
    const off = server.main.client.onRequest("item/toolCall/requestApproval", (params) => {
      asked.push(params);
      return params.prefix === "cat" ? { decision: "acceptPrefixForSession" } : { decision: "decline" };
    });
    try {
      const thread = (await server.main.request("thread/start", { cwd: dir, approvalMode: "ask", model: SCRIPTED })).thread;
      const first = bash(`cat ${auth}`);
      assert.equal((await toolTurn(server.main, thread.id, [first])).get(first.id), "declined");
      assert.equal(asked.length, 1);
      assert.deepEqual(asked[0]!.decisions, ["accept", "decline", "cancel"], "no prefix grant is offered for a command naming the agent folder");
      assert.equal(asked[0]!.prefix, undefined);
      assert.match(asked[0]!.reason ?? "", /agent folder/);
      for (const command of ["cat README.md", "cat notes.txt", "cat ./README.md notes.txt", "cat /dev/null"]) {
        const attempt = bash(command);
        assert.equal((await toolTurn(server.main, thread.id, [attempt])).get(attempt.id), "completed", command);
      }
      assert.equal(asked.length, 2, "the first cat README.md asks; the rest run under its grant");
    } finally {
      off();
    }
    assert.deepEqual(leakedKeys(since), []);
  });
});

describe("door 2: a git, kubectl or gh grant never stretches to an option that reads elsewhere", () => {
  test("git diff --no-index, blame --contents, commit -F/--template, rebase -i, kubectl -o *-file= and gh --web all ask again", async () => {
    const since = model.requests.length;
    const dir = gitRepo({ "README.md": "readme\n" });
    const grants = ["git diff", "git blame README.md", "git commit --allow-empty -m one", "git rebase main", "kubectl get --help", "gh pr view --help"];
    const problems = await grantThenAttack(dir, grants, [
      `git diff --no-index /dev/null ${auth}`,
      `git diff /dev/null ${auth}`,
      `git diff --no-index -- README.md ${auth}`,
      `git blame --contents ${auth} README.md`,
      `git blame --contents=${auth} README.md`,
      `git commit --allow-empty -F ${auth}`,
      `git commit --allow-empty -F${auth}`,
      `git commit --allow-empty --file=${auth}`,
      `git commit --allow-empty --template ${auth}`,
      "git commit --allow-empty --pathspec-from-file=list",
      "git rebase -i main",
      "git rebase --interactive main",
      "git rebase --edit-todo",
      `kubectl get pods -o go-template-file=${auth}`,
      `kubectl get pods -ogo-template-file=${auth}`,
      `kubectl get pods --output=jsonpath-file=${auth}`,
      "gh pr view 1 --web",
      "gh pr view 1 -w",
    ]);
    assert.deepEqual({ problems, leaked: leakedKeys(since) }, { problems: [], leaked: [] }, "every attack asked, and no key reached the model");
  });
});

describe("door 9: a git remote grant never covers a local remote", () => {
  test("git remote add and set-url, granted for a network URL, ask for a local path or a file:// URL, and none is configured", async () => {
    const dir = gitRepo({ "README.md": "readme\n", "inner/README.md": "inner\n" });
    const grants = ["git remote add upstream https://example.invalid/a.git", "git remote set-url upstream https://example.invalid/b.git"];
    const problems = await grantThenAttack(dir, grants, [
      "git remote add x ../elsewhere",
      "git remote add y elsewhere",
      "git remote add z ./inner",
      "git remote add w file:///tmp/x",
      `git remote add v ${dir}/inner`,
      "git remote set-url upstream file:///tmp/x",
      "git remote set-url upstream inner",
      "git remote set-url --push upstream ../elsewhere",
    ]);
    assert.deepEqual(problems, []);
    const remotes = execFileSync("git", ["remote", "-v"], { cwd: dir, encoding: "utf8" });
    assert.deepEqual(
      remotes.split("\n").filter((line) => line !== "" && !line.includes("https://example.invalid/")),
      [],
      `only network remotes were configured: ${remotes}`,
    );
  });
});
