import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { discoverResources, type DiscoverOptions } from "../../src/resources/discover.js";
import type { Resource } from "../../src/resources/types.js";
import { sandbox, skillFile, type Sandbox } from "./fixture.js";

function discover(box: Sandbox, options: Partial<DiscoverOptions> = {}) {
  return discoverResources({ agentDir: box.agentDir, cwd: box.cwd, projectTrusted: true, settings: {}, homeDir: box.home, ...options });
}

function states(resources: Resource[]): Record<string, boolean> {
  return Object.fromEntries(resources.map((r) => [`${r.type}:${r.name}`, r.enabled]));
}

test("settings paths add files and folders: relative to the scope base, ~, absolute", () => {
  const box = sandbox();
  try {
    box.write({ "mine/tools.ts": "", "mine/ext-folder/index.ts": "", "mine/skills-lib/a/SKILL.md": skillFile("a", "d"), "mine/one.md": "one" }, box.home);
    box.write({ "extra/local.ts": "", "extra/more/x.ts": "", "extra/more/y.js": "" }, box.agentDir);
    box.write({ "shared/theme.json": "{}", "shared/prompts/p.md": "p" }, box.root);
    box.write({ "team/review-skill/SKILL.md": skillFile("team-review", "d") }, box.projectDir);
    const { resources, warnings } = discover(box, {
      settings: {
        global: {
          extensions: ["~/mine/tools.ts", "~/mine/ext-folder", "extra/local.ts", "./extra/more"],
          skills: ["~/mine/skills-lib"],
          prompts: ["~/mine/one.md", join(box.root, "shared/prompts")],
          themes: ["../../../shared/theme.json"],
        },
        project: { skills: ["team/review-skill"] },
      },
    });
    assert.deepEqual(warnings, []);
    const summary = resources.map((r) => `${r.type} ${r.name} ${r.scope}/${r.origin}`);
    assert.deepEqual(summary, [
      "extensions ext-folder global/settings",
      "extensions local global/settings",
      "extensions tools global/settings",
      "extensions x global/settings",
      "extensions y global/settings",
      "skills team-review project/settings",
      "skills a global/settings",
      "prompts one global/settings",
      "prompts p global/settings",
      "themes theme global/settings",
    ]);
    assert.ok(resources.every((r) => r.enabled));
    assert.equal(resources.find((r) => r.name === "ext-folder")!.path, join(box.home, "mine/ext-folder/index.ts"));
    assert.equal(resources.find((r) => r.name === "a")!.source, join(box.agentDir, "settings.json"));
    assert.equal(resources.find((r) => r.name === "team-review")!.source, join(box.projectDir, "settings.json"));
  } finally {
    box.close();
  }
});

test("missing paths and malformed lists warn and never throw", () => {
  const box = sandbox();
  try {
    const { resources, warnings } = discover(box, {
      settings: {
        global: { extensions: ["gone.ts", 42 as unknown as string, ""], skills: "skills" as unknown as string[] },
        project: { prompts: ["~/nowhere"] },
      },
    });
    assert.deepEqual(resources, []);
    const file = join(box.agentDir, "settings.json");
    assert.deepEqual(warnings, [
      { message: `"extensions" in ${file} has an entry that is not a path or pattern: 42`, source: "settings", path: file },
      { message: `"extensions" in ${file} has an entry that is not a path or pattern: ""`, source: "settings", path: file },
      {
        message: `"extensions" entry "gone.ts" in ${file}: ${join(box.agentDir, "gone.ts")} does not exist`,
        source: "settings",
        path: join(box.agentDir, "gone.ts"),
      },
      { message: `"skills" in ${file} must be a list; ignored`, source: "settings", path: file },
      {
        message: `"prompts" entry "~/nowhere" in ${join(box.projectDir, "settings.json")}: ${join(box.home, "nowhere")} does not exist`,
        source: "settings",
        path: join(box.home, "nowhere"),
      },
    ]);
  } finally {
    box.close();
  }
});

test("+ and - patterns with globs; the later entry wins", () => {
  const box = sandbox();
  try {
    box.write({ "extensions/a.ts": "", "extensions/b.ts": "", "extensions/legacy/index.ts": "", "extensions/c.js": "" }, box.agentDir);
    box.write(
      { "skills/x/one/SKILL.md": skillFile("one", "d"), "skills/x/two/SKILL.md": skillFile("two", "d"), "skills/y/SKILL.md": skillFile("y", "d") },
      box.agentDir,
    );
    const { resources } = discover(box, {
      settings: {
        global: {
          extensions: ["-extensions/*.ts", "+extensions/b.ts", "-**/legacy", "-c.js", `-${join(box.agentDir, "extensions/c.js")}`],
          skills: ["-skills/x/**", "+skills/x/two", "-*", "+skills/y/SKILL.md"],
        },
      },
    });
    assert.deepEqual(states(resources), {
      "extensions:a": false,
      "extensions:b": true,
      "extensions:c": false,
      "extensions:legacy": false,
      "skills:one": false,
      "skills:two": false,
      "skills:y": true,
    });
  } finally {
    box.close();
  }
});

test("a path entry switches on what it adds, at its place in the list", () => {
  const box = sandbox();
  try {
    box.write({ "lib/a.ts": "" }, box.home);
    const before = discover(box, { settings: { global: { extensions: ["-~/lib/a.ts", "~/lib/a.ts"] } } });
    assert.equal(before.resources[0]!.enabled, true);
    const after = discover(box, { settings: { global: { extensions: ["~/lib/a.ts", "-~/lib/*.ts"] } } });
    assert.equal(after.resources[0]!.enabled, false);
  } finally {
    box.close();
  }
});

test("project settings win over global ones, in both directions", () => {
  const box = sandbox();
  try {
    box.write({ "extensions/g1.ts": "", "extensions/g2.ts": "" }, box.agentDir);
    box.write({ "extensions/p1.ts": "", "extensions/p2.ts": "" }, box.projectDir);
    const { resources } = discover(box, {
      settings: {
        global: { extensions: ["-**/p1.ts", "-**/p2.ts", "-extensions/g1.ts"] },
        project: { extensions: ["+extensions/p1.ts", `-${join(box.agentDir, "extensions/g2.ts")}`, "+~/.knightcode/agent/extensions/g1.ts"] },
      },
    });
    assert.deepEqual(states(resources), { "extensions:p1": true, "extensions:p2": false, "extensions:g1": true, "extensions:g2": false });
  } finally {
    box.close();
  }
});

test("the same file reached from several places appears once, under the most specific scope", () => {
  const box = sandbox();
  try {
    box.write({ "extensions/a.ts": "" }, box.agentDir);
    const path = join(box.agentDir, "extensions/a.ts");
    const { resources } = discover(box, { settings: { global: { extensions: ["extensions/a.ts", "extensions"] }, project: { extensions: [path] } } });
    assert.deepEqual(
      resources.map((r) => `${r.name} ${r.scope}/${r.origin}`),
      ["a project/settings"],
    );
  } finally {
    box.close();
  }
});
