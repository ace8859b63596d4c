import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { ScriptedModelServer } from "@knightcode/testkit";
import { runNode, type NodeRun } from "../support/run-node.js";

/**
 * The newcomer's walk of docs/client.md, outside the repository: the
 * packages packed, a fresh project installing them offline, the doc's files
 * compiled with tsc --strict (scripts/newcomer.mjs), and the result run
 * against the scripted model with the `knightcode` of the installed package.
 */
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const run = promisify(execFile);

let model: ScriptedModelServer;
let dir: string;
let home: string;
let project: string;

before(async () => {
  model = await ScriptedModelServer.start();
  dir = mkdtempSync(join(tmpdir(), "kc-newcomer-"));
  home = join(dir, "home");
  const agentDir = join(home, ".knightcode", "agent");
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(model.modelsJson()));
  project = join(dir, "some-project");
  mkdirSync(project);
});
after(async () => {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

function runClient(client: string, ...args: string[]): Promise<NodeRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: join(home, ".knightcode", "agent") };
  delete env.KNIGHTCODE_APP_SERVER_TOKEN;
  delete env.KNIGHTCODE_CODING_AGENT_SESSION_DIR;
  return runNode(join(client, "dist", "main.js"), args, { cwd: client, env });
}

describe("docs/client.md, walked in a fresh project outside the repository", () => {
  test("the doc's files are examples/ts, word for word", () => {
    const doc = readFileSync(join(ROOT, "docs", "client.md"), "utf8");
    const blocks = [...doc.matchAll(/<!-- newcomer: (\S+) -->\n```\w*\n([\s\S]*?)```/g)];
    assert.deepEqual(blocks.map(([, name]) => name).sort(), ["src/main.ts", "tsconfig.json"]);
    for (const [, name, text] of blocks)
      assert.equal(text, readFileSync(join(ROOT, "examples", "ts", name!), "utf8"), `${name} and its copy in the doc differ`);
  });

  test("packed, installed offline, compiled strict, and run against the scripted model", { timeout: 120_000 }, async () => {
    const made = await run(process.execPath, [join(ROOT, "scripts", "newcomer.mjs"), join(dir, "walk")], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    const client = made.stdout.trim();
    assert.ok(!client.startsWith(ROOT), "the project is outside the repository");
    assert.ok(existsSync(join(client, "node_modules", "@knightcode", "cli", "bin", "knightcode.js")), "the CLI is installed from its tarball");
    model.enqueue(
      { toolCalls: [{ id: "call_w", name: "write", arguments: { path: "notes.txt", content: "notes\n" } }] },
      { toolCalls: [{ id: "call_b", name: "bash", arguments: { command: "ls > listing.txt" } }] },
      { text: "done" },
    );
    const result = await runClient(client, project, "Write notes.txt, then run ls.");
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      result.stdout,
      ["approval: write -> accept", "tool write: completed", "approval: bash -> decline", "tool bash: declined", "done", "[turn completed]", ""].join("\n"),
    );
    assert.ok(existsSync(join(project, "notes.txt")));
    assert.ok(!existsSync(join(project, "listing.txt")));
    const declined = model.requests.at(-1)?.body.messages.find((m: { role: string }) => m.role === "tool" && JSON.stringify(m).includes("call_b"));
    assert.match(JSON.stringify(declined), /Not running `ls > listing.txt` from this client/);
  });
});
