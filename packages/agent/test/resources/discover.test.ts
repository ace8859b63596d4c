import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { discoverResources, type DiscoverOptions } from "../../src/resources/discover.js";
import type { Resource } from "../../src/resources/types.js";
import { sandbox, skillFile, type Sandbox } from "./fixture.js";

function discover(box: Sandbox, options: Partial<DiscoverOptions> = {}) {
  return discoverResources({ agentDir: box.agentDir, cwd: box.cwd, projectTrusted: true, settings: {}, homeDir: box.home, ...options });
}

function brief(resources: Resource[]): string[] {
  return resources.map((r) => `${r.type} ${r.scope}/${r.origin} ${r.name}${r.enabled ? "" : " (off)"}`);
}

test("every type is found in the agent dir and in a trusted project", () => {
  const box = sandbox();
  try {
    const tree = {
      "extensions/plain.ts": "",
      "extensions/module.mjs": "",
      "extensions/old.js": "",
      "extensions/types.d.ts": "",
      "extensions/notes.md": "",
      "extensions/.hidden.ts": "",
      "extensions/folder-ext/index.ts": "",
      "extensions/folder-ext/helper.ts": "",
      "extensions/no-index/helper.ts": "",
      "skills/review/SKILL.md": skillFile("review", "Reviews code"),
      "skills/review/nested/SKILL.md": skillFile("inner", "never reached: a skill folder is not searched further"),
      "skills/cat/pdf/SKILL.md": skillFile("pdf-tools", "PDF work"),
      "skills/node_modules/dep/SKILL.md": skillFile("dep", "skipped"),
      "skills/.git/x/SKILL.md": skillFile("dot", "skipped"),
      "prompts/fix.md": "---\ndescription: Fix an issue\n---\nFix $1",
      "prompts/plain.md": "\n# Explain the code\nmore",
      "prompts/nested/ignored.md": "prompts are not nested",
      "themes/dark.json": "{}",
      "themes/readme.txt": "",
    };
    box.write(tree, box.agentDir);
    box.write(
      { "extensions/local.ts": "", "skills/deploy/SKILL.md": skillFile("deploy", "Ships it"), "prompts/ship.md": "Ship", "themes/light.json": "{}" },
      box.projectDir,
    );
    const { resources, warnings, skipped } = discover(box);
    assert.deepEqual(brief(resources), [
      "extensions project/directory local",
      "extensions global/directory folder-ext",
      "extensions global/directory module",
      "extensions global/directory old",
      "extensions global/directory plain",
      "skills project/directory deploy",
      "skills global/directory pdf-tools",
      "skills global/directory review",
      "prompts project/directory ship",
      "prompts global/directory fix",
      "prompts global/directory plain",
      "themes project/directory light",
      "themes global/directory dark",
    ]);
    const byName = new Map(resources.map((r) => [r.name, r]));
    assert.equal(byName.get("folder-ext")!.path, join(box.agentDir, "extensions/folder-ext/index.ts"));
    assert.equal(byName.get("review")!.path, join(box.agentDir, "skills/review/SKILL.md"));
    assert.equal(byName.get("review")!.description, "Reviews code");
    assert.equal(byName.get("review")!.source, join(box.agentDir, "skills"));
    assert.equal(byName.get("fix")!.description, "Fix an issue");
    assert.equal(resources.find((r) => r.type === "prompts" && r.name === "plain")!.description, "Explain the code");
    assert.equal(byName.get("deploy")!.source, join(box.projectDir, "skills"));
    assert.deepEqual(warnings, []);
    assert.equal(skipped, undefined);
  } finally {
    box.close();
  }
});

test("an untrusted project is not read, and what was skipped is reported", () => {
  const box = sandbox();
  try {
    box.write({ "extensions/evil.ts": "", "skills/s/SKILL.md": skillFile("s", "d"), "settings.json": "{}" }, box.projectDir);
    box.write({ "extensions/mine.ts": "" }, box.agentDir);
    const result = discover(box, { projectTrusted: false, settings: { project: { extensions: ["/etc"] } } });
    assert.deepEqual(brief(result.resources), ["extensions global/directory mine"]);
    assert.deepEqual(result.skipped, {
      dir: box.projectDir,
      reason: "untrusted",
      paths: [join(box.projectDir, "extensions"), join(box.projectDir, "skills"), join(box.projectDir, "settings.json")],
    });
    assert.deepEqual(result.warnings, [], "ignored project settings are not even validated");
    const bare = sandbox();
    try {
      assert.equal(discover(bare, { projectTrusted: false }).skipped, undefined, "nothing to skip, nothing reported");
      assert.equal(discoverResources({ agentDir: bare.agentDir, projectTrusted: false, settings: {} }).skipped, undefined);
    } finally {
      bare.close();
    }
  } finally {
    box.close();
  }
});

test("only the known folders are read: resources elsewhere in the project are not found", () => {
  const box = sandbox();
  try {
    box.write(
      {
        "extensions/a.ts": "",
        "skills/x/SKILL.md": skillFile("x", "d"),
        "src/.knightcode/extensions/b.ts": "",
        "node_modules/pkg/skills/y/SKILL.md": skillFile("y", "d"),
      },
      box.cwd,
    );
    box.write({ loop: { link: "." } }, box.cwd);
    assert.deepEqual(discover(box).resources, []);
  } finally {
    box.close();
  }
});

test("symlinks are followed once: a loop ends and a linked file counts once", () => {
  const box = sandbox();
  try {
    box.write(
      {
        "skills/a/SKILL.md": skillFile("a", "d"),
        "skills/a/loop": { link: ".." },
        "skills/b/back": { link: "../../skills" },
        "skills/deep/self": { link: "." },
      },
      box.agentDir,
    );
    box.write({ "shared/ext.ts": "" }, box.root);
    box.write({ "extensions/linked.ts": { link: join(box.root, "shared/ext.ts") } }, box.agentDir);
    const { resources, warnings } = discover(box, { settings: { global: { extensions: [join(box.root, "shared/ext.ts")] } } });
    assert.deepEqual(brief(resources), ["extensions global/directory linked", "skills global/directory a"]);
    assert.deepEqual(warnings, []);
  } finally {
    box.close();
  }
});

test("a branching symlink loop is walked once, not to the folder limit", () => {
  const box = sandbox();
  try {
    box.write(
      {
        "skills/x/a": { link: "." },
        "skills/x/b": { link: "." },
        "skills/x/c": { link: ".." },
        "skills/x/d": { link: "../x" },
        "skills/y/SKILL.md": skillFile("y", "d"),
      },
      box.agentDir,
    );
    const { resources, warnings } = discover(box);
    assert.deepEqual(
      resources.map((r) => r.path),
      [join(box.agentDir, "skills/y/SKILL.md")],
    );
    assert.deepEqual(warnings, []);
  } finally {
    box.close();
  }
});

test("a skills folder with too many folders is cut short with a warning", () => {
  const box = sandbox();
  try {
    box.write({ "skills/000/SKILL.md": skillFile("first", "d") }, box.agentDir);
    for (let i = 1; i <= 2100; i++) mkdirSync(join(box.agentDir, "skills", String(i).padStart(4, "0")));
    const { resources, warnings } = discover(box);
    assert.deepEqual(
      resources.map((r) => r.name),
      ["first"],
    );
    assert.deepEqual(warnings, [{ message: "stopped looking for skills after 2000 folders", source: "settings", path: join(box.agentDir, "skills") }]);
  } finally {
    box.close();
  }
});

test("skill nesting is bounded in depth", () => {
  const box = sandbox();
  try {
    box.write({ "skills/1/2/3/4/5/ok/SKILL.md": skillFile("ok", "d"), "skills/1/2/3/4/5/6/too-deep/SKILL.md": skillFile("deep", "d") }, box.agentDir);
    assert.deepEqual(
      discover(box).resources.map((r) => r.name),
      ["ok"],
    );
  } finally {
    box.close();
  }
});

test("-e paths: always enabled, scope cli, win over the same file found elsewhere; missing ones warn", () => {
  const box = sandbox();
  try {
    box.write({ "extensions/a.ts": "" }, box.agentDir);
    box.write({ "cli/folder/index.js": "", "cli/many/x.ts": "", "cli/many/y.ts": "" }, box.root);
    const missing = join(box.root, "nope.ts");
    const { resources, warnings } = discover(box, {
      cliExtensions: [join(box.agentDir, "extensions/a.ts"), join(box.root, "cli/folder"), join(box.root, "cli/many"), missing],
      settings: { global: { extensions: ["-extensions/a.ts"] } },
    });
    assert.deepEqual(brief(resources), ["extensions cli/cli a", "extensions cli/cli folder", "extensions cli/cli x", "extensions cli/cli y"]);
    assert.equal(resources[0]!.source, join(box.agentDir, "extensions/a.ts"));
    assert.deepEqual(warnings, [{ message: `-e ${missing} does not exist`, source: "extension", path: missing }]);
  } finally {
    box.close();
  }
});

test("built-in names are never listed; a user file with one is reported", () => {
  const box = sandbox();
  try {
    box.write({ "extensions/mcp.ts": "", "extensions/other.ts": "" }, box.agentDir);
    box.write({ "builtin/mcp.ts": "" }, box.root);
    const { resources, warnings } = discover(box, { builtinNames: ["mcp"], cliExtensions: [join(box.root, "builtin/mcp.ts")] });
    assert.deepEqual(
      resources.map((r) => r.name),
      ["other"],
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!.message, /name of the built-in extension "mcp"/);
  } finally {
    box.close();
  }
});

test("skills: frontmatter name wins, a bad name falls back to the folder, a missing description warns", () => {
  const box = sandbox();
  try {
    box.write(
      {
        "skills/folder-a/SKILL.md": skillFile("named-a", "has one"),
        "skills/folder-b/SKILL.md": skillFile("has space", "d"),
        "skills/folder-c/SKILL.md": "no frontmatter at all",
        "skills/folder-d/SKILL.md": skillFile("off", undefined),
      },
      box.agentDir,
    );
    const { resources, warnings } = discover(box, { settings: { global: { skills: ["-skills/folder-d"] } } });
    assert.deepEqual(
      resources.map((r) => `${r.name}:${r.description ?? "-"}`),
      ["folder-b:d", "folder-c:-", "named-a:has one", "off:-"],
    );
    assert.deepEqual(
      warnings.map((w) => w.message),
      [
        `skill name "has space" has spaces or a slash, or is over 64 characters; using the folder name "folder-b"`,
        `skill "folder-c" has no description, so the model cannot tell when to use it`,
      ],
      "a disabled skill is not nagged about",
    );
    assert.equal(warnings[1]!.path, join(box.agentDir, "skills/folder-c/SKILL.md"));
  } finally {
    box.close();
  }
});

test("prompt templates: bad frontmatter and names that cannot be typed are reported", () => {
  const box = sandbox();
  try {
    box.write({ "prompts/open.md": "---\ndescription: never closed\n", "prompts/two words.md": "x" }, box.agentDir);
    const { resources, warnings } = discover(box);
    assert.deepEqual(
      resources.map((r) => `${r.name}:${r.description}`),
      ["open:description: never closed", "two words:x"],
    );
    assert.deepEqual(
      warnings.map((w) => w.message),
      [
        "frontmatter starts with --- but is never closed",
        `prompt template "two words" cannot be typed as a command (spaces or over 64 characters); rename the file`,
      ],
    );
  } finally {
    box.close();
  }
});

test("same name in two scopes: the project wins, the other is marked and reported", () => {
  const box = sandbox();
  try {
    box.write(
      { "skills/review/SKILL.md": skillFile("review", "global"), "prompts/fix.md": "g", "themes/dark.json": "{}", "extensions/same.ts": "" },
      box.agentDir,
    );
    box.write(
      { "skills/mine/SKILL.md": skillFile("review", "project"), "prompts/fix.md": "p", "themes/dark.json": "{}", "extensions/same.ts": "" },
      box.projectDir,
    );
    const { resources, warnings } = discover(box);
    const shadowed = resources.filter((r) => r.shadowedBy !== undefined);
    assert.deepEqual(
      shadowed.map((r) => `${r.type} ${r.scope}`),
      ["skills global", "prompts global", "themes global"],
    );
    assert.equal(shadowed[0]!.shadowedBy, join(box.projectDir, "skills/mine/SKILL.md"));
    assert.ok(
      shadowed.every((r) => r.enabled),
      "shadowing is not disabling",
    );
    assert.equal(warnings.length, 3);
    assert.match(warnings[0]!.message, /skill "review" at .* \(global\) is hidden by the one at .* \(project\)/);
    assert.equal(
      resources.filter((r) => r.type === "extensions").every((r) => r.shadowedBy === undefined),
      true,
      "extensions never shadow",
    );
  } finally {
    box.close();
  }
});

test("a disabled resource shadows nothing", () => {
  const box = sandbox();
  try {
    box.write({ "prompts/fix.md": "g" }, box.agentDir);
    box.write({ "prompts/fix.md": "p" }, box.projectDir);
    const { resources, warnings } = discover(box, { settings: { project: { prompts: ["-prompts/fix.md"] } } });
    assert.deepEqual(
      resources.map((r) => `${r.scope} ${r.enabled} ${r.shadowedBy ?? ""}`),
      ["project false ", "global true "],
    );
    assert.deepEqual(warnings, []);
  } finally {
    box.close();
  }
});
