import assert from "node:assert/strict";
import { link, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { createFindTool } from "../../src/tools/find.js";
import { createGrepTool } from "../../src/tools/grep.js";
import { createLsTool } from "../../src/tools/ls.js";
import { createReadTool } from "../../src/tools/read.js";
import type { ToolContext } from "../../src/tools/context.js";
import { grepEngines } from "./search-support.js";
import { rejectsWith, tempDir, textOf } from "./support.js";

/** An agent dir with credentials beside a project that reaches them by every kind of path. */
async function setup(t: TestContext): Promise<{ root: string; agentDir: string; ctx: ToolContext }> {
  const root = await tempDir(t);
  const agentDir = join(root, "agent");
  const project = join(root, "project");
  await mkdir(agentDir);
  await mkdir(project);
  await writeFile(join(agentDir, "auth.json"), '{"anthropic":{"key":"sk-secret-auth"}}\n');
  await writeFile(join(agentDir, "models.json"), '{"apiKey":"sk-secret-models"}\n');
  await writeFile(join(agentDir, "settings.json"), '{"note":"sk-secret is not here"}\n');
  await writeFile(join(project, "notes.txt"), "sk-secret goes in auth.json\n");
  await symlink("../agent/auth.json", join(project, "link-auth.json"));
  await symlink("../agent", join(project, "link-agent"));
  await link(join(agentDir, "models.json"), join(project, "hard.json"));
  await symlink("agent", join(root, "agent-link"));
  return { root, agentDir, ctx: { cwd: project, agentDir } };
}

const CREDENTIAL = /is a KnightCode credential file/;

test("read refuses the agent dir's credential files by any path, and reads the rest", async (t) => {
  const { root, agentDir, ctx } = await setup(t);
  const read = createReadTool(ctx);
  for (const path of [
    join(agentDir, "auth.json"),
    "../agent/auth.json",
    "../project/../agent/./models.json",
    "link-auth.json",
    "link-agent/auth.json",
    "hard.json",
  ]) {
    await rejectsWith(read.execute("c", { path }), "protectedPath", CREDENTIAL);
  }
  // An agent dir given through a link protects the same files.
  await rejectsWith(createReadTool({ ...ctx, agentDir: join(root, "agent-link") }).execute("c", { path: "../agent/auth.json" }), "protectedPath", CREDENTIAL);
  assert.match(textOf(await read.execute("c", { path: "../agent/settings.json" })), /sk-secret is not here/);
  // Without an agent dir (a tool built outside a thread), nothing is protected.
  assert.match(textOf(await createReadTool({ cwd: ctx.cwd }).execute("c", { path: "link-auth.json" })), /sk-secret-auth/);
});

test("ls and find refuse a credential file as their path, and list the agent dir's names", async (t) => {
  const { agentDir, ctx } = await setup(t);
  await rejectsWith(createLsTool(ctx).execute("c", { path: "../agent/auth.json" }), "protectedPath", CREDENTIAL);
  await rejectsWith(createFindTool(ctx, { search: "builtin" }).execute("c", { pattern: "*", path: "link-auth.json" }), "protectedPath", CREDENTIAL);
  assert.equal(textOf(await createLsTool(ctx).execute("c", { path: agentDir })), "auth.json\nmodels.json\nsettings.json");
  assert.equal(textOf(await createFindTool(ctx, { search: "builtin" }).execute("c", { pattern: "auth.json", path: agentDir })), `${agentDir}/auth.json`);
});

for (const engine of grepEngines) {
  test(`grep (${engine.name}) refuses a credential file as its path and passes over them in a folder`, { skip: engine.skip }, async (t) => {
    const { agentDir, ctx } = await setup(t);
    const grep = createGrepTool(ctx, engine.options);
    for (const path of ["../agent/auth.json", "link-auth.json", "hard.json"]) {
      await rejectsWith(grep.execute("c", { pattern: "sk-secret", path }), "protectedPath", CREDENTIAL);
    }
    const expected = [`${agentDir}/settings.json:1: {"note":"sk-secret is not here"}`, "notes.txt:1: sk-secret goes in auth.json"];
    const lines = (text: string) => text.split("\n").sort();
    assert.deepEqual(lines(textOf(await grep.execute("c", { pattern: "sk-secret", path: ".." }))), expected);
    assert.deepEqual(lines(textOf(await grep.execute("c", { pattern: "sk-secret", path: "..", context: 1 }))), ["--", ...expected]);
    assert.equal(textOf(await grep.execute("c", { pattern: "sk-secret", path: agentDir, glob: "*.json" })), expected[0]);
    assert.equal(textOf(await grep.execute("c", { pattern: "sk-secret", glob: "*.json" })), "No matches found.");
  });
}
