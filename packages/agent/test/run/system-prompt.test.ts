import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { buildSystemPrompt, collectContextFiles } from "../../src/run/system-prompt.js";

test("instruction files come from the agent dir, then from the outermost folder down to the cwd", () => {
  const root = mkdtempSync(join(tmpdir(), "kc-prompt-"));
  try {
    const agentDir = join(root, "agent");
    const project = join(root, "repo", "pkg");
    mkdirSync(agentDir, { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(agentDir, "AGENTS.md"), "global rules");
    writeFileSync(join(root, "repo", "AGENTS.md"), "repo rules");
    writeFileSync(join(root, "repo", "CLAUDE.md"), "ignored: AGENTS.md wins in a folder");
    writeFileSync(join(project, "CLAUDE.md"), "package rules");
    const files = collectContextFiles(project, agentDir);
    assert.deepEqual(
      files.map((f) => f.content),
      ["global rules", "repo rules", "package rules"],
    );
    const prompt = buildSystemPrompt({
      cwd: project,
      agentDir,
      tools: [{ name: "read", description: "Read a file.\nMore." }],
      now: new Date("2026-11-30T00:00:00Z"),
    });
    assert.ok(prompt.indexOf("repo rules") < prompt.indexOf("package rules"));
    assert.match(prompt, /- read: Read a file\./);
    assert.match(prompt, /Current date: 2026-11-30/);
    assert.match(prompt, new RegExp(`Working directory: ${project}`));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a huge instruction file is cut at 64 KiB with a note", () => {
  const root = mkdtempSync(join(tmpdir(), "kc-prompt-"));
  try {
    writeFileSync(join(root, "AGENTS.md"), "y".repeat(200_000));
    const [file] = collectContextFiles(root, join(root, "none"));
    assert.equal(file!.truncated, true);
    assert.equal(file!.content.length, 64 * 1024);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
