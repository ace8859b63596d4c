import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { ScriptedModelServer } from "@knightcode/testkit";
import { runNode, type NodeRun } from "../support/run-node.js";

/** The repository's examples/, run as a reader would run them, against the scripted model. */
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const EXAMPLES = join(ROOT, "examples");

let model: ScriptedModelServer;
let home: string;
let project: string;

before(async () => {
  model = await ScriptedModelServer.start();
  home = mkdtempSync(join(tmpdir(), "kc-examples-home-"));
  const agentDir = join(home, ".knightcode", "agent");
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(model.modelsJson()));
  project = join(home, "project");
  mkdirSync(project);
  writeFileSync(join(project, "README.md"), "# example project\n");
});
after(async () => {
  await model.close();
  rmSync(home, { recursive: true, force: true });
});

function run(name: string, ...args: string[]): Promise<NodeRun> {
  // `knightcode` on the PATH, as `npm exec` puts it there: the examples spawn it by name.
  const PATH = `${join(ROOT, "node_modules", ".bin")}${delimiter}${process.env.PATH ?? ""}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PATH, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: join(home, ".knightcode", "agent") };
  delete env.KNIGHTCODE_APP_SERVER_TOKEN;
  delete env.KNIGHTCODE_CODING_AGENT_SESSION_DIR;
  return runNode(join(EXAMPLES, name), args, { cwd: home, env });
}

describe("examples/ run against the scripted model", () => {
  test("every example file is run by a test here", () => {
    const tested = ["stdio-chat.mjs", "websocket.mjs", "approvals.mjs", "history.mjs"];
    assert.deepEqual(
      readdirSync(EXAMPLES)
        .filter((name) => name.endsWith(".mjs"))
        .sort(),
      tested.sort(),
    );
  });

  test("the examples compile under strict TypeScript: the .mjs files checked as JavaScript, examples/ts as its own project", async () => {
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    for (const project of [join(EXAMPLES, "tsconfig.json"), join(EXAMPLES, "ts", "tsconfig.json")]) {
      const checked = await promisify(execFile)(process.execPath, [tsc, "--strict", "--noEmit", "-p", project], { cwd: ROOT }).catch(
        (error: { stdout: string }) => error,
      );
      assert.equal(checked.stdout, "", `${project}:\n${checked.stdout}`);
    }
  });

  test("the client README's example is examples/stdio-chat.mjs, word for word", () => {
    const readme = readFileSync(join(ROOT, "packages", "app-server-client", "README.md"), "utf8");
    const blocks = [...readme.matchAll(/<!-- example: (\S+) -->\n```js\n([\s\S]*?)```/g)];
    assert.ok(blocks.length >= 1, "the README marks its examples");
    for (const [, name, code] of blocks) assert.equal(code, readFileSync(join(EXAMPLES, name!), "utf8"), `${name} and its README copy differ`);
  });

  test("stdio-chat.mjs streams the answer and reports the turn", async () => {
    model.enqueue({ text: ["Hello ", "from the ", "scripted model."] });
    const result = await run("stdio-chat.mjs", project, "Say hello.");
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "Hello from the scripted model.\n[turn completed]\n");
  });

  test("websocket.mjs learns the port from the ready file and chats over the socket", async () => {
    model.enqueue({ text: "over the socket" });
    const result = await run("websocket.mjs", project, "hi");
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^server ws:\/\/127\.0\.0\.1:\d+\nover the socket\n\[turn completed\]\n$/);
  });

  test("approvals.mjs accepts the write and declines the shell command", async () => {
    model.enqueue(
      { toolCalls: [{ id: "call_w", name: "write", arguments: { path: "notes.txt", content: "notes\n" } }] },
      { toolCalls: [{ id: "call_b", name: "bash", arguments: { command: "ls > listing.txt" } }] },
      { text: "done" },
    );
    const result = await run("approvals.mjs", project, "Write notes.txt, then run ls.");
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      result.stdout,
      ["approval: write -> accept", "tool write: completed", "approval: bash -> decline", "tool bash: declined", "[turn completed]", ""].join("\n"),
    );
    assert.ok(existsSync(join(project, "notes.txt")));
    assert.ok(!existsSync(join(project, "listing.txt")));
  });

  test("history.mjs pages through the folder's threads and their turns", async () => {
    const result = await run("history.mjs", project);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^3 thread\(s\) in /);
    assert.match(result.stdout, /userMessage: "Say hello\."\n {2}agentMessage: "Hello from the scripted model\."/);
    assert.equal(result.stdout.match(/thread [0-9a-f-]{36}: 1 turn\(s\) in 1 page\(s\)/g)?.length, 3, result.stdout);
  });
});
