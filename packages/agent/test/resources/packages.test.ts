import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { discoverResources, type DiscoverOptions } from "../../src/resources/discover.js";
import type { Resource } from "../../src/resources/types.js";
import { sandbox, skillFile, type Sandbox } from "./fixture.js";

function discover(box: Sandbox, options: Partial<DiscoverOptions> = {}) {
  return discoverResources({ agentDir: box.agentDir, cwd: box.cwd, projectTrusted: true, settings: {}, homeDir: box.home, ...options });
}

function brief(resources: Resource[]): string[] {
  return resources.map((r) => `${r.type} ${r.name}${r.enabled ? "" : " (off)"}`);
}

const CONVENTIONAL = {
  "pkg/package.json": JSON.stringify({ name: "pkg" }),
  "pkg/extensions/tool.ts": "",
  "pkg/extensions/big/index.ts": "",
  "pkg/skills/lint/SKILL.md": skillFile("lint", "Lints"),
  "pkg/prompts/plan.md": "Plan $@",
  "pkg/themes/sunset.json": "{}",
  "pkg/index.ts": "not a convention",
};

test("a package without a manifest offers its conventional folders", () => {
  const box = sandbox();
  try {
    box.write(CONVENTIONAL, box.root);
    const root = join(box.root, "pkg");
    const { resources, warnings } = discover(box, { settings: { global: { packages: [root] } } });
    assert.deepEqual(warnings, []);
    assert.deepEqual(brief(resources), ["extensions big", "extensions tool", "skills lint", "prompts plan", "themes sunset"]);
    for (const r of resources) {
      assert.equal(r.origin, "package");
      assert.equal(r.scope, "global");
      assert.equal(r.source, root);
    }
  } finally {
    box.close();
  }
});

test("a manifest names paths, folders and globs inside the package; ! excludes; left-out types bring nothing", () => {
  const box = sandbox();
  try {
    box.write(
      {
        "package.json": JSON.stringify({
          name: "m",
          knightcode: {
            extensions: ["dist/main.js", "./plugins/", "extras/*.ts", "!extras/skip.ts"],
            skills: ["lib/**/SKILL.md", "!lib/private"],
            prompts: ["docs/prompts"],
          },
        }),
        "dist/main.js": "",
        "dist/other.js": "",
        "plugins/p1.ts": "",
        "plugins/p2/index.js": "",
        "extras/e1.ts": "",
        "extras/skip.ts": "",
        "extras/readme.md": "",
        "lib/a/SKILL.md": skillFile("lib-a", "d"),
        "lib/deep/b/SKILL.md": skillFile("lib-b", "d"),
        "lib/private/c/SKILL.md": skillFile("lib-c", "d"),
        "lib/node_modules/x/SKILL.md": skillFile("nm", "d"),
        "docs/prompts/ask.md": "ask",
        "themes/ignored.json": "{}",
        "skills/ignored/SKILL.md": skillFile("conv", "d"),
      },
      join(box.root, "m"),
    );
    const { resources, warnings } = discover(box, { settings: { project: { packages: [join(box.root, "m")] } } });
    assert.deepEqual(warnings, []);
    assert.deepEqual(brief(resources), ["extensions e1", "extensions main", "extensions p1", "extensions p2", "skills lib-a", "skills lib-b", "prompts ask"]);
    assert.ok(resources.every((r) => r.scope === "project"));
  } finally {
    box.close();
  }
});

test("manifest mistakes warn: missing entries, escapes, wrong shapes, broken package.json", () => {
  const box = sandbox();
  try {
    box.write({ "a/package.json": JSON.stringify({ knightcode: { extensions: ["missing.ts", "../outside.ts"], skills: "skills" } }) }, box.root);
    box.write({ "b/package.json": "{ not json", "b/prompts/p.md": "p" }, box.root);
    box.write({ "c/package.json": JSON.stringify({ knightcode: ["x"] }), "c/themes/t.json": "{}" }, box.root);
    const { resources, warnings } = discover(box, { settings: { global: { packages: ["../../../a", "../../../b", "../../../c"] } } });
    assert.deepEqual(brief(resources), ["prompts p", "themes t"], "a broken manifest falls back to the conventional folders");
    const messages = warnings.map((w) => w.message);
    assert.equal(messages.length, 5);
    assert.match(messages[0]!, /"knightcode.extensions" entry "missing.ts" does not exist in the package/);
    assert.match(messages[1]!, /"knightcode.extensions" entry "..\/outside.ts" leaves the package folder/);
    assert.match(messages[2]!, /"knightcode.skills" in package.json must be a list of paths/);
    assert.match(messages[3]!, /package.json is not valid JSON .*; using the conventional folders/);
    assert.match(messages[4]!, /"knightcode" in package.json is not an object/);
  } finally {
    box.close();
  }
});

test("a package entry's own filter: + and - relative to the package root, later wins", () => {
  const box = sandbox();
  try {
    box.write(CONVENTIONAL, box.root);
    const root = join(box.root, "pkg");
    const { resources, warnings } = discover(box, {
      settings: {
        global: {
          packages: [{ source: root, extensions: ["-extensions/*", "+extensions/big"], skills: ["-skills/lint/SKILL.md"], prompts: ["plan.md"] }],
          // Top-level patterns do not reach package resources: their filter decides.
          themes: ["-**/sunset.json"],
        },
      },
    });
    assert.deepEqual(brief(resources), ["extensions big", "extensions tool (off)", "skills lint (off)", "prompts plan", "themes sunset"]);
    assert.deepEqual(
      warnings.map((w) => w.message),
      [`package filter entry "plan.md" for ${root} must start with + or -; ignored`],
    );
  } finally {
    box.close();
  }
});

test("the same package in both scopes: the project entry and its filter win", () => {
  const box = sandbox();
  try {
    box.write(CONVENTIONAL, box.home);
    const { resources } = discover(box, {
      settings: {
        global: { packages: [{ source: "~/pkg", prompts: ["-prompts/plan.md"] }] },
        project: { packages: ["~/pkg"] },
      },
    });
    assert.ok(resources.every((r) => r.scope === "project" && r.enabled));
    assert.equal(resources.length, 5);
  } finally {
    box.close();
  }
});

test("remote or missing packages warn; nothing is installed", () => {
  const box = sandbox();
  try {
    const { resources, warnings } = discover(box, {
      settings: {
        global: { packages: ["npm:@foo/bar", "git:github.com/u/r", "https://github.com/u/r", "git@github.com:u/r", "./absent", { nosource: 1 } as never] },
      },
    });
    assert.deepEqual(resources, []);
    assert.equal(warnings.length, 6);
    assert.ok(warnings.slice(0, 4).every((w) => /is not a local folder; KnightCode installs nothing/.test(w.message)));
    assert.match(warnings[4]!.message, /package "\.\/absent" .* is not a folder/);
    assert.match(warnings[5]!.message, /neither a path nor \{source, \.\.\.\}/);
  } finally {
    box.close();
  }
});

test("a package's template loses to a top-level one of the same name in its scope", () => {
  const box = sandbox();
  try {
    box.write(CONVENTIONAL, box.root);
    box.write({ "prompts/plan.md": "mine" }, box.agentDir);
    const { resources } = discover(box, { settings: { global: { packages: [join(box.root, "pkg")] } } });
    const plans = resources.filter((r) => r.name === "plan");
    assert.deepEqual(
      plans.map((r) => `${r.origin} ${r.shadowedBy ? "shadowed" : "used"}`),
      ["directory used", "package shadowed"],
    );
  } finally {
    box.close();
  }
});
