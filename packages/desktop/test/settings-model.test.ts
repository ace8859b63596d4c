import { strict as assert } from "node:assert";
import { readFileSync, writeFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { signal } from "@preact/signals";
import { createSettingsModel, switchTool, type SettingsModel } from "../src/features/settings/model.js";
import { asConnection, startInProcessServer, type InProcessServer } from "./feature-model-support.js";

/** The settings model over a real in-process server: no page, no browser. */
describe("the settings model", () => {
  let server: InProcessServer;
  before(async () => {
    server = await startInProcessServer();
  });
  after(() => server.close());

  async function made(threadCwd: string | undefined = undefined): Promise<{ model: SettingsModel; threadCwd: ReturnType<typeof signal<string | undefined>> }> {
    const client = await server.client();
    const connection = asConnection(client);
    const followed = signal<string | undefined>(threadCwd);
    return { model: createSettingsModel({ conn: () => connection, threadCwd: followed }), threadCwd: followed };
  }

  test("the screens follow the open thread's folder until the user chooses one, or none", async () => {
    const { model, threadCwd } = await made(server.project);
    assert.equal(model.cwd.value, server.project);
    assert.ok((await model.readConfig()).paths.project, "a project's settings file is read");
    model.chosenProject.value = null;
    assert.equal(model.cwd.value, undefined);
    assert.equal((await model.readConfig()).paths.project, undefined, "global only");
    threadCwd.value = "/elsewhere";
    assert.equal(model.cwd.value, undefined, "a chosen 'no project' stays chosen when another thread opens");
    model.chosenProject.value = undefined;
    assert.equal(model.cwd.value, "/elsewhere");
  });

  test("several keys are written in order, each expecting the version the one before left; a file changed meanwhile is refused and kept", async () => {
    const { model } = await made();
    const read = await model.readConfig();
    await model.writeConfig(read, "global", [
      ["defaultThinkingLevel", "high"],
      ["requests.holdSeconds", 120],
    ]);
    const written = JSON.parse(readFileSync(read.paths.global, "utf8")) as Record<string, unknown>;
    assert.equal(written.defaultThinkingLevel, "high");
    assert.deepEqual(written.requests, { holdSeconds: 120 });
    // Another writer changes the file after this read: the write that follows is refused, and their change stays.
    const stale = await model.readConfig();
    writeFileSync(stale.paths.global, JSON.stringify({ ...written, defaultThinkingLevel: "low" }, null, 2));
    await assert.rejects(model.writeConfig(stale, "global", [["defaultThinkingLevel", "off"]]), (error: { code?: string }) => error.code === "configConflict");
    assert.equal((JSON.parse(readFileSync(stale.paths.global, "utf8")) as Record<string, unknown>).defaultThinkingLevel, "low");
  });

  test("a tool switch is written where the list in force comes from: the trusted project's list, else the global one", async () => {
    const { model } = await made(server.project);
    await model.setTrust(server.project, true);
    assert.equal((await model.readTrust(server.project)).trusted, true);
    const first = await model.readConfig();
    assert.equal(await model.offerTool(first, "bash", false), "global", "no project list: the global one is in force");
    assert.deepEqual((await model.readGlobalConfig()).settings.defaultTools, ["-bash"]);
    assert.equal((await model.readTools()).defaultTools.includes("bash"), false, "new threads here are no longer offered bash");
    const withGlobal = await model.readConfig();
    await model.writeConfig(withGlobal, "project", [["defaultTools", ["read", "bash"]]]);
    const withProject = await model.readConfig();
    assert.equal(withProject.origins.defaultTools, "project");
    assert.equal(await model.offerTool(withProject, "bash", false), "project");
    assert.deepEqual((await model.readConfig()).settings.defaultTools, ["read", "-bash"]);
    assert.deepEqual((await model.readGlobalConfig()).settings.defaultTools, ["-bash"], "the global list is untouched");
  });

  test("the default model goes to the global settings, whichever project the screens follow", async () => {
    const { model } = await made(server.project);
    const read = await model.readGlobalConfig();
    const chosen = (await model.listModels({ available: true })).models[0];
    assert.ok(chosen, "the scripted model is available");
    await model.makeDefault(read, chosen);
    const after = (await model.readGlobalConfig()).settings as { defaultProvider?: string; defaultModel?: string };
    assert.deepEqual([after.defaultProvider, after.defaultModel], [chosen.provider, chosen.id]);
  });

  test("an MCP server added, switched off and removed; the list starts none of them", async () => {
    const { model } = await made();
    assert.deepEqual(await model.addMcp("project", "docs", { command: "node", args: ["-e", "0"] }), { replaced: false }, "no project: written globally");
    const listed = (await model.readMcp()).servers.find((s) => s.name === "docs");
    assert.equal(listed?.scope, "global");
    await model.updateMcp("docs", { enabled: false });
    assert.equal((await model.readMcp()).servers.find((s) => s.name === "docs")?.enabled, false);
    await model.removeMcp(listed!);
    assert.equal(
      (await model.readMcp()).servers.some((s) => s.name === "docs"),
      false,
    );
  });

  test("switchTool: a pattern list adjusted with + and -, or chosen outright", () => {
    assert.deepEqual(switchTool([], "bash", false), ["-bash"]);
    assert.deepEqual(switchTool(["-bash"], "bash", true), ["+bash"]);
    assert.deepEqual(switchTool(["read", "-bash"], "bash", true), ["read", "bash"]);
    assert.deepEqual(switchTool(["read", "+bash"], "bash", false), ["read", "-bash"]);
  });
});
