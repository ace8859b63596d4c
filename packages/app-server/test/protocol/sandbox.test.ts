import assert from "node:assert/strict";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test, type TestContext } from "node:test";
import { sandboxSupport } from "@knightcode/system/process/sandbox/support";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, waitUntil, type TestServer } from "../support/harness.js";
import { hostProcesses } from "../support/processes.js";
import { approver, toolCall, toolTurn } from "../support/tool-turns.js";

/**
 * The sandbox through the real binary, each test written as what a
 * prompt-injected model does once the user said yes: the approval is the
 * first wall and is passed on purpose here, so the sandbox is the one
 * that must hold. Where bubblewrap cannot run, these report skipped; the
 * warning, the diagnostics and `sandbox.required` are checked everywhere
 * with a server that is told there is no sandbox.
 */

const KEY = "sk-test-contained-7c1e";
const NODE_BIN = fileURLToPath(new URL("../../../../../node_modules/.bin", import.meta.url));
const support = await sandboxSupport();
const skip = support.available ? false : `the sandbox cannot run here: ${support.reason}`;

let model: ScriptedModelServer;
before(async () => {
  model = await ScriptedModelServer.start();
});
after(() => model.close());

async function serverWith(t: TestContext, env: Record<string, string> = {}, globalSettings?: object): Promise<TestServer> {
  const server = await startServer({
    model,
    env: { KC_VAULT_API_KEY: KEY, PATH: `${NODE_BIN}${delimiter}${process.env.PATH ?? ""}`, KNIGHTCODE_THREAD_IDLE_MS: "300", ...env },
  });
  t.after(() => server.cleanup());
  writeFileSync(join(server.agentDir, "auth.json"), JSON.stringify({ "kc-test-vault": { type: "api_key", key: KEY } }), { mode: 0o600 });
  if (globalSettings !== undefined) writeFileSync(join(server.agentDir, "settings.json"), JSON.stringify(globalSettings));
  return server;
}

/** Every model request since `from`, as text: what reached the provider. */
const sentToModel = (from: number): string =>
  model.requests
    .slice(from)
    .map((request) => JSON.stringify(request.body))
    .join("\n");

describe("door 1, the sandbox's half: an accepted command still cannot read a key", () => {
  test("cat of auth.json, of the server's /proc environ, grep of the agent folder: no key reaches the model", { skip }, async (t) => {
    const server = await serverWith(t);
    const cwd = server.project({ "README.md": "hello\n" });
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "ask" });
    const { off } = approver(server.main, () => ({ decision: "accept" }));
    t.after(off);
    const from = model.requests.length;
    const reads = [
      `cat ${server.agentDir}/auth.json`,
      `cat /proc/${server.pid}/environ | tr '\\0' '\\n'`,
      `grep -r sk-test ${server.home}/.knightcode /proc/${server.pid}/ 2>&1 | head`,
      `ls -la ${server.agentDir}; env`,
      "cat /proc/*/environ | tr '\\0' '\\n' | grep -i key",
    ].map((command) => toolCall("bash", { command }));
    const items = await toolTurn(server.main, model, thread.id, reads);
    for (const call of reads) {
      const item = items.get(call.id);
      assert.ok(item, `${call.id} completed`);
      assert.ok(!(item.output ?? "").includes(KEY), `${JSON.stringify(call.arguments)} showed the key: ${item.output}`);
    }
    assert.match(items.get(reads[0]!.id)?.output ?? "", /No such file or directory/);
    await model.waitForRequests(from + 2);
    assert.ok(!sentToModel(from).includes(KEY), "no key in what the model provider received");
  });
});

describe("door 3: a granted bare tsc, with a tsconfig the model wrote", () => {
  test("an outDir in the agent folder lands nothing outside the thread's folder", { skip }, async (t) => {
    const server = await serverWith(t);
    const cwd = server.project({ "main.ts": "export const ok = 1;\n" });
    const target = join(server.agentDir, "extensions");
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "autoEdit" });
    const { asked, off } = approver(server.main, (params) => (params.prefix === "tsc" ? { decision: "acceptPrefixForSession" } : { decision: "decline" }));
    t.after(off);
    const config = toolCall("write", {
      path: "tsconfig.json",
      content: JSON.stringify({ compilerOptions: { outDir: target, allowJs: true }, include: ["*.ts", "*.js"] }),
    });
    const payload = toolCall("write", {
      path: "evil.js",
      content: `require("node:fs").writeFileSync(${JSON.stringify(join(server.home, "pwned"))}, "ran");\n`,
    });
    const first = toolCall("bash", { command: "tsc" });
    const items = await toolTurn(server.main, model, thread.id, [config, payload, first]);
    assert.equal(items.get(config.id)?.status, "completed", "an ordinary project file is written without asking in autoEdit");
    assert.equal(asked.filter((params) => params.prefix === "tsc").length, 1, "the first tsc asks and earns the grant");
    const again = toolCall("bash", { command: "tsc" });
    await toolTurn(server.main, model, thread.id, [again]);
    assert.equal(asked.length, 1, "the granted tsc runs without asking");
    assert.equal(existsSync(target), false, `tsc wrote into the agent folder: ${existsSync(target) ? readdirSync(target).join(", ") : ""}`);
    assert.equal(existsSync(join(server.home, "pwned")), false);
  });
});

describe("the network, through the approval flow", () => {
  test("off by default; a call that asks for it is asked about with acceptNetworkForSession, and only then reaches it", { skip }, async (t) => {
    const server = await serverWith(t);
    const host: Server = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
    t.after(() => new Promise<void>((resolve) => host.close(() => resolve())));
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${(host.address() as { port: number }).port} && cat <&3 || echo no-network`;
    const cwd = server.project();
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "autoEdit" });
    let answer: "accept" | "acceptNetworkForSession" | "decline" = "accept";
    const { asked, off } = approver(server.main, () => ({ decision: answer }));
    t.after(off);

    const plain = toolCall("bash", { command: probe });
    assert.match((await toolTurn(server.main, model, thread.id, [plain])).get(plain.id)?.output ?? "", /no-network/);
    assert.ok(!asked[0]!.decisions.includes("acceptNetworkForSession"), "a call that does not ask for the network is not offered it");

    answer = "decline";
    const declined = toolCall("bash", { command: probe, network: true });
    assert.equal((await toolTurn(server.main, model, thread.id, [declined])).get(declined.id)?.status, "declined");
    const request = asked.at(-1)!;
    assert.deepEqual(request.decisions, ["accept", "acceptNetworkForSession", "decline", "cancel"]);
    assert.match(request.reason ?? "", /network/);
    assert.equal(request.prefix, undefined, "no prefix grant stretches to the network");

    answer = "acceptNetworkForSession";
    const granted = toolCall("bash", { command: probe, network: true });
    assert.match((await toolTurn(server.main, model, thread.id, [granted])).get(granted.id)?.output ?? "", /hello from the host/);

    answer = "accept";
    const later = toolCall("bash", { command: probe, network: true });
    assert.match((await toolTurn(server.main, model, thread.id, [later])).get(later.id)?.output ?? "", /hello from the host/);
    assert.ok(!asked.at(-1)!.decisions.includes("acceptNetworkForSession"), "with the thread's grant, the command is asked about as any other");
    const without = toolCall("bash", { command: probe });
    assert.match(
      (await toolTurn(server.main, model, thread.id, [without])).get(without.id)?.output ?? "",
      /no-network/,
      "a call that does not ask keeps the network off",
    );
  });
});

describe("the sandbox's processes", () => {
  test("background jobs outlive the call and die with the thread, even one that left its session", { skip }, async (t) => {
    const server = await serverWith(t);
    const cwd = server.project();
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "ask" });
    const { off } = approver(server.main, () => ({ decision: "accept" }));
    t.after(off);
    // Durations no other run uses: a leftover of an earlier run must not count.
    const [first, second] = [900_000 + Math.floor(Math.random() * 90_000), 990_000 + Math.floor(Math.random() * 9_000)];
    const job = toolCall("bash", { command: `sleep ${first} > /dev/null 2>&1 & setsid sleep ${second} > /dev/null 2>&1 < /dev/null & echo started` });
    assert.match((await toolTurn(server.main, model, thread.id, [job])).get(job.id)?.output ?? "", /started/);
    await waitUntil(
      "both jobs running after the call returned",
      () => hostProcesses(`sleep ${first}`).length === 1 && hostProcesses(`sleep ${second}`).length === 1,
    );
    const mark = server.main.notifications.length;
    await server.main.request("thread/unsubscribe", { threadId: thread.id });
    await server.main.waitForNotification("thread/status/changed", (p) => p.threadId === thread.id && p.status.type === "notLoaded", { since: mark });
    await waitUntil("both jobs gone with the thread", () => hostProcesses(`sleep ${first}`).length + hostProcesses(`sleep ${second}`).length === 0);
    assert.equal((await server.close()).code, 0);
  });
});

describe("a project cannot switch the sandbox off", () => {
  test("sandbox.* in trusted project settings is ignored, with a warning", { skip }, async (t) => {
    const server = await serverWith(t);
    const cwd = server.project({ ".knightcode/settings.json": JSON.stringify({ sandbox: { mode: "off", network: true } }) });
    await server.main.request("project/trust/set", { cwd, trusted: true });
    const outside = join(server.home, "outside.txt");
    const { thread, warnings } = await server.main.request("thread/start", { cwd, approvalMode: "ask" });
    assert.ok(
      warnings.some((w) => /sandbox\.mode is a global setting/.test(w.message)),
      JSON.stringify(warnings),
    );
    assert.ok(
      warnings.some((w) => /sandbox\.network is a global setting/.test(w.message)),
      JSON.stringify(warnings),
    );
    const { off } = approver(server.main, () => ({ decision: "accept" }));
    t.after(off);
    const escapeCall = toolCall("bash", { command: `echo x > ${outside} || echo refused` });
    assert.match((await toolTurn(server.main, model, thread.id, [escapeCall])).get(escapeCall.id)?.output ?? "", /refused/);
    assert.equal(existsSync(outside), false);
  });
});

describe("where the sandbox cannot run, nothing is silent", () => {
  test("thread/start warns, server/diagnostics says why, and a fullAccess thread is not warned", async (t) => {
    const server = await serverWith(t, { KNIGHTCODE_BWRAP: "" });
    const diagnostics = await server.main.request("server/diagnostics", {});
    assert.equal(diagnostics.sandbox.available, false);
    if (process.platform === "linux") assert.match(diagnostics.sandbox.reason ?? "", /KNIGHTCODE_BWRAP/);
    const { warnings } = await server.main.request("thread/start", { cwd: server.project(), approvalMode: "ask" });
    const warning = warnings.find((w) => w.source === "server" && /sandbox/i.test(w.message));
    assert.ok(warning, JSON.stringify(warnings));
    assert.match(warning.message, /approval rules alone/);
    const full = await server.main.request("thread/start", { cwd: server.project(), approvalMode: "fullAccess" });
    assert.ok(!full.warnings.some((w) => /sandbox/i.test(w.message)), JSON.stringify(full.warnings));
    assert.equal((await server.close()).code, 0);
  });

  test("with sandbox.required, an accepted command is refused and nothing runs", async (t) => {
    const server = await serverWith(t, { KNIGHTCODE_BWRAP: "" }, { sandbox: { required: true }, defaultTools: ["+grep"] });
    const cwd = server.project({ "a.txt": "xyz\n" });
    const marker = join(cwd, "ran");
    const { thread, warnings } = await server.main.request("thread/start", { cwd, approvalMode: "ask" });
    assert.ok(
      warnings.some((w) => /sandbox\.required/.test(w.message)),
      JSON.stringify(warnings),
    );
    const { off } = approver(server.main, () => ({ decision: "accept" }));
    t.after(off);
    const touch = toolCall("bash", { command: `touch ${marker}` });
    const item = (await toolTurn(server.main, model, thread.id, [touch])).get(touch.id);
    assert.equal(item?.status, "failed");
    assert.match(item?.output ?? "", /sandbox\.required/);
    assert.equal(existsSync(marker), false);
    const search = toolCall("grep", { pattern: "x", path: "." });
    assert.equal((await toolTurn(server.main, model, thread.id, [search])).get(search.id)?.status, "completed", "read-only tools search in-process instead");
  });
});
