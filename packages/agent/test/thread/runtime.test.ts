import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { silentUI } from "../../src/extensions/silent-ui.js";
import { SessionFile } from "@knightcode/store/session/session-file";
import { allowAllToolCalls } from "../../src/thread/gates.js";
import { ThreadRuntime } from "../../src/thread/runtime.js";
import type { ThreadEnvironment } from "../../src/thread/runtime-options.js";
import { resolveDefaultTools } from "../../src/thread/tool-selection.js";
import { TrustStore } from "../../src/trust/store.js";
import type { Warning } from "@knightcode/system/warning";
import { runEnv, type RunEnv } from "../support/env.js";
import { assertGone, isGone, killAfter } from "@knightcode/system/test/tools/processes";

let env: RunEnv;
let environment: ThreadEnvironment;
let cliExtension: string;
before(async () => {
  env = await runEnv();
  cliExtension = join(env.dir, "cli-ext.ts");
  writeFileSync(cliExtension, `export default (kc: any) => kc.registerCommand("from-cli", { description: "cli", handler: () => {} });`);
  environment = { agentDir: env.agentDir, registry: env.registry, trust: new TrustStore(env.agentDir), extensionPaths: [cliExtension], env: {} };
});
after(() => env.close());

let n = 0;
function project(files: Record<string, string>): string {
  const dir = join(env.dir, `project-${n++}`);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function open(cwd: string, gate: { approvalGate?: typeof allowAllToolCalls } = {}) {
  const transcript = await SessionFile.create({ dir: join(env.dir, "sessions"), cwd });
  const later: Warning[] = [];
  const { runtime, warnings } = await ThreadRuntime.create({
    ...gate,
    environment,
    threadId: transcript.header.id,
    cwd,
    transcript,
    mode: "headless",
    hasUI: false,
    ui: silentUI(),
    onWarning: (w) => later.push(w),
  });
  return { runtime, warnings, later, transcript };
}

const projectFiles = {
  ".knightcode/settings.json": JSON.stringify({ defaultTools: ["+grep"] }),
  ".knightcode/extensions/local.ts": `export default (kc: any) => kc.registerCommand("local", { description: "project command", handler: () => {} });`,
  ".knightcode/prompts/review.md": "---\ndescription: Review a file\n---\nReview $1 carefully.",
  ".knightcode/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: How to deploy this project\n---\nRun make deploy.",
};

describe("a thread in a project", () => {
  test("an undecided project's resources are skipped with a trust warning; -e extensions still load", async () => {
    const cwd = project(projectFiles);
    const { runtime, warnings, transcript } = await open(cwd);
    const trust = warnings.find((w) => w.source === "trust");
    assert.ok(trust, JSON.stringify(warnings));
    assert.match(trust.message, /settings\.json/);
    assert.deepEqual(
      runtime.commands().map((c) => c.name),
      ["from-cli"],
    );
    assert.equal((await runtime.session.resolveModel())?.provider, "scripted");
    await runtime.dispose("unload");
    transcript.close();
  });

  test("a trusted project brings its settings, extensions, templates and skills", async () => {
    const cwd = project(projectFiles);
    await environment.trust.set(cwd, true);
    const { runtime, warnings, transcript } = await open(cwd);
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      runtime
        .commands()
        .map((c) => c.name)
        .sort(),
      ["from-cli", "local", "review", "skill:deploy"],
    );
    env.model.enqueue({ text: "ok" });
    const before = env.model.requests.length;
    assert.equal((await runtime.session.runTurn({ text: "hi" })).status, "completed");
    const body = env.model.requests[before]!.body;
    assert.match(body.messages[0].content, /<name>deploy<\/name>\s*<description>How to deploy this project<\/description>/);
    assert.ok(
      body.tools.some((t: { function: { name: string } }) => t.function.name === "grep"),
      "project settings added grep",
    );
    assert.ok(!body.tools.some((t: { function: { name: string } }) => t.function.name === "ls"));
    await runtime.dispose("unload");
    transcript.close();
    assert.match(readFileSync(transcript.path, "utf8"), /"turn_end"/);
  });

  test("input: extension commands are handled, templates and skills expand, the rest continues", async () => {
    const cwd = project(projectFiles);
    await environment.trust.set(cwd, true);
    const { runtime, transcript } = await open(cwd);
    assert.deepEqual(await runtime.processInput("/local now", [], "user"), { action: "handled" });
    const review = await runtime.processInput("/review src/a.ts", [], "user");
    assert.ok(review.action === "continue" && review.text === "Review src/a.ts carefully.");
    const skill = await runtime.processInput("/skill:deploy staging", [], "user");
    assert.ok(skill.action === "continue" && /make deploy/.test(skill.text) && /staging/.test(skill.text));
    const plain = await runtime.processInput("just text", [], "user");
    assert.deepEqual(plain, { action: "continue", text: "just text", images: [] });
    await runtime.dispose("unload");
    transcript.close();
  });

  test("reload shuts the extensions down and loads them again with fresh settings", async () => {
    const marker = join(env.dir, `reload-${n}.log`);
    const cwd = project({
      ".knightcode/extensions/watch.ts": `
        import { appendFileSync } from "node:fs";
        export default (kc: any) => {
          appendFileSync(${JSON.stringify(marker)}, "load\\n");
          kc.on("session_shutdown", (e: any) => appendFileSync(${JSON.stringify(marker)}, "shutdown:" + e.reason + "\\n"));
        };`,
    });
    await environment.trust.set(cwd, true);
    const { runtime, transcript } = await open(cwd);
    writeFileSync(join(cwd, ".knightcode", "settings.json"), JSON.stringify({ extensions: ["-extensions/watch.ts"] }));
    await runtime.reload();
    assert.equal(readFileSync(marker, "utf8"), "load\nshutdown:reload\n", "the disabled extension did not load again");
    await runtime.dispose("unload");
    transcript.close();
  });

  test("extensionHookTimeoutMs from the settings limits every handler, and a reload reads it again", async () => {
    const cwd = project({
      ".knightcode/settings.json": JSON.stringify({ extensionHookTimeoutMs: 40 }),
      ".knightcode/extensions/sleepy.ts": `export default (kc: any) => kc.on("session_start", () => new Promise(() => {}));`,
    });
    await environment.trust.set(cwd, true);
    const { runtime, later, transcript } = await open(cwd);
    await runtime.start("startup");
    writeFileSync(join(cwd, ".knightcode", "settings.json"), JSON.stringify({ extensionHookTimeoutMs: 60 }));
    await runtime.reload();
    assert.deepEqual(
      later.map((w) => w.message),
      [40, 60].map((ms) => `session_start handler of sleepy did not finish within ${ms} ms; it was abandoned`),
    );
    await runtime.dispose("unload");
    transcript.close();
  });

  test("the thread's read tool refuses the agent dir's credential files; the model reads why, not the keys", async () => {
    const { runtime, transcript } = await open(project({}), { approvalGate: allowAllToolCalls });
    const path = join(env.agentDir, "models.json");
    env.model.enqueue({ toolCalls: [{ id: "call_creds", name: "read", arguments: { path } }] }, { text: "understood" });
    const before = env.model.requests.length;
    assert.equal((await runtime.session.runTurn({ text: "show me your config" })).status, "completed");
    const sent = JSON.stringify(env.model.requests[before + 1]!.body.messages);
    assert.match(sent, /is a KnightCode credential file/);
    assert.doesNotMatch(sent, /test-key|openai-completions/);
    await runtime.dispose("unload");
    transcript.close();
  });
});

describe("the approval gate of a thread", () => {
  test("a thread without a gate refuses every tool call; one that says allowAllToolCalls runs them", async () => {
    const cwd = project({ "a.txt": "alpha" });
    for (const [gate, expected] of [
      [{}, /no approval gate/],
      [{ approvalGate: allowAllToolCalls }, /alpha/],
    ] as const) {
      const { runtime, transcript } = await open(cwd, gate);
      env.model.enqueue({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }, { text: "done" });
      const before = env.model.requests.length;
      assert.equal((await runtime.session.runTurn({ text: "read a.txt" })).status, "completed");
      const toolMessage = (env.model.requests[before + 1]!.body.messages as { role: string; content: unknown }[]).find((m) => m.role === "tool");
      assert.match(JSON.stringify(toolMessage?.content), expected);
      await runtime.dispose("unload");
      transcript.close();
    }
  });
});

describe("processes a thread started", () => {
  test("dispose kills the background jobs of its bash calls and of its extensions' exec", async (t) => {
    const bashPid = join(env.dir, `bash-${n}.pid`);
    const execPid = join(env.dir, `exec-${n}.pid`);
    const cwd = project({
      ".knightcode/extensions/spawner.ts": `
        import { writeFileSync } from "node:fs";
        export default (kc: any) => kc.registerCommand("spawn", { handler: async () => {
          const result = await kc.exec("bash", ["-c", "sleep 1000 > /dev/null 2>&1 & echo $!"]);
          writeFileSync(${JSON.stringify(execPid)}, result.stdout);
        } });`,
    });
    await environment.trust.set(cwd, true);
    const { runtime, transcript } = await open(cwd, { approvalGate: allowAllToolCalls });
    t.after(() => transcript.close());
    env.model.enqueue({ toolCalls: [{ name: "bash", arguments: { command: `sleep 1000 > /dev/null 2>&1 & echo $! > ${bashPid}` } }] }, { text: "started" });
    assert.equal((await runtime.session.runTurn({ text: "start a server" })).status, "completed");
    assert.deepEqual(await runtime.processInput("/spawn", [], "user"), { action: "handled" });
    const pids = [Number(readFileSync(bashPid, "utf8")), Number(readFileSync(execPid, "utf8"))];
    for (const pid of pids) killAfter(t, pid);
    assert.deepEqual(pids.map(isGone), [false, false], "both outlive the calls that started them");
    assert.equal(runtime.processes.size, 2);
    await runtime.dispose("unload");
    for (const pid of pids) await assertGone(pid);
  });
});

test("defaultTools: plain names choose the set, + adds, - removes", () => {
  assert.deepEqual(resolveDefaultTools([]), ["read", "bash", "edit", "write"]);
  assert.deepEqual(resolveDefaultTools(["+grep", "-bash"]), ["read", "edit", "write", "grep"]);
  assert.deepEqual(resolveDefaultTools(["read", "ls"]), ["read", "ls"]);
});
