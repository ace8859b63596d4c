import assert from "node:assert/strict";
import { homedir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Compile } from "typebox/compile";
import { BUILTIN_TOOL_NAMES, createBuiltinTools } from "../../src/tools/index.js";
import { createAskUserTool } from "../../src/tools/ask-user.js";
import { createSubmitPlanTool } from "../../src/tools/submit-plan.js";
import { displayPath, resolveToolPath } from "../../src/tools/context.js";

test("createBuiltinTools gives read, bash, edit, write, grep, find, ls in that order", () => {
  const tools = createBuiltinTools({ cwd: "/tmp" });
  assert.deepEqual(
    tools.map((tool) => tool.name),
    ["read", "bash", "edit", "write", "grep", "find", "ls"],
  );
  assert.deepEqual([...BUILTIN_TOOL_NAMES], ["read", "bash", "edit", "write", "grep", "find", "ls"]);
});

test("every tool has a label, a description and a parameter schema that compiles", () => {
  const tools = [...createBuiltinTools({ cwd: "/tmp" }), createAskUserTool({ cwd: "/tmp" }), createSubmitPlanTool({ cwd: "/tmp" })];
  for (const tool of tools) {
    assert.ok(tool.label.length > 0, tool.name);
    assert.ok(tool.description.length > 80 && tool.description.length < 1200, `${tool.name}: ${tool.description.length} characters`);
    assert.equal((tool.parameters as { type?: string }).type, "object");
    Compile(tool.parameters);
  }
  const read = Compile(tools[0]!.parameters);
  assert.equal(read.Check({ path: "a", offset: 0 }), false);
  assert.equal(read.Check({ path: "a", offset: 2, limit: 10 }), true);
});

test("paths: ~ is home, relative is against the cwd, and display is relative inside the cwd only", () => {
  const ctx = { cwd: "/work/project" };
  assert.equal(resolveToolPath(ctx, "~"), homedir());
  assert.equal(resolveToolPath(ctx, "~/notes.md"), join(homedir(), "notes.md"));
  assert.equal(resolveToolPath(ctx, "~other/x"), "/work/project/~other/x");
  assert.equal(resolveToolPath(ctx, "src/../lib/a.ts"), "/work/project/lib/a.ts");
  assert.equal(resolveToolPath(ctx, "/etc/hosts"), "/etc/hosts");
  assert.equal(displayPath(ctx, "/work/project/lib/a.ts"), "lib/a.ts");
  assert.equal(displayPath(ctx, "/work/project"), ".");
  assert.equal(displayPath(ctx, "/work/project2/x"), "/work/project2/x");
  assert.equal(displayPath(ctx, "/work/project/..hidden"), "..hidden");
});
