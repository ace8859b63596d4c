import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { discoverResources } from "../../src/resources/discover.js";
import { planResourceToggle, type ResourceTogglePlan } from "../../src/resources/toggle.js";
import { ResourceError, type ResourceType, type ScopedSettings } from "../../src/resources/types.js";
import { sandbox, skillFile, type Sandbox } from "./fixture.js";

/** Plans a toggle, applies it to the settings like a settings writer would, and rediscovers. */
function toggle(box: Sandbox, settings: ScopedSettings, type: ResourceType, path: string, enabled: boolean, extra: { cliExtensions?: string[] } = {}) {
  const base = { agentDir: box.agentDir, cwd: box.cwd, projectTrusted: true, homeDir: box.home };
  const before = discoverResources({ ...base, settings, ...extra });
  const plan = planResourceToggle({ ...base, resources: before.resources, settings, type, path, enabled });
  const next: ScopedSettings = { ...settings, [plan.scope]: { ...settings[plan.scope], [plan.key]: plan.value } };
  const after = discoverResources({ ...base, settings: next, ...extra });
  const resource = after.resources.find((r) => r.type === type && r.path === path);
  return { plan, next, enabledAfter: resource?.enabled };
}

function refused(fn: () => unknown, code: string): void {
  assert.throws(fn, (error: unknown) => error instanceof ResourceError && error.code === code);
}

test("a global directory resource: a relative -path in the global list", () => {
  const box = sandbox();
  try {
    box.write({ "skills/review/SKILL.md": skillFile("review", "d") }, box.agentDir);
    const path = join(box.agentDir, "skills/review/SKILL.md");
    const off = toggle(box, { global: { skills: ["~/x", "+skills/review/SKILL.md"] } }, "skills", path, false);
    assert.deepEqual(off.plan, { scope: "global", key: "skills", value: ["~/x", "-skills/review/SKILL.md"] });
    assert.equal(off.enabledAfter, false);
    const on = toggle(box, off.next, "skills", path, true);
    assert.deepEqual(on.plan.value, ["~/x", "+skills/review/SKILL.md"]);
    assert.equal(on.enabledAfter, true);
  } finally {
    box.close();
  }
});

test("opposite and duplicate entries for the same path go, whatever their spelling; globs stay", () => {
  const box = sandbox();
  try {
    box.write({ "extensions/a.ts": "" }, box.agentDir);
    const path = join(box.agentDir, "extensions/a.ts");
    const settings = {
      global: {
        extensions: ["-extensions/a.ts", `+${path}`, "-~/.knightcode/agent/extensions/a.ts", "-./extensions/a.ts", "-extensions/*.ts", "-extensions/b.ts"],
      },
    };
    const { plan, enabledAfter } = toggle(box, settings, "extensions", path, true);
    assert.deepEqual(plan.value, ["-extensions/*.ts", "-extensions/b.ts", "+extensions/a.ts"]);
    assert.equal(enabledAfter, true);
  } finally {
    box.close();
  }
});

test("a project resource goes to the project settings; outside the base the path is absolute", () => {
  const box = sandbox();
  try {
    box.write({ "prompts/ship.md": "ship" }, box.projectDir);
    box.write({ "elsewhere/team.md": "team" }, box.root);
    const ship = toggle(box, {}, "prompts", join(box.projectDir, "prompts/ship.md"), false);
    assert.deepEqual(ship.plan, { scope: "project", key: "prompts", value: ["-prompts/ship.md"] });
    assert.equal(ship.enabledAfter, false);
    const teamPath = join(box.root, "elsewhere/team.md");
    const team = toggle(box, { project: { prompts: [teamPath] } }, "prompts", teamPath, false);
    assert.deepEqual(team.plan, { scope: "project", key: "prompts", value: [teamPath, `-${teamPath}`] });
    assert.equal(team.enabledAfter, false);
  } finally {
    box.close();
  }
});

test("a package resource edits that package entry's filter, turning a string entry into an object", () => {
  const box = sandbox();
  try {
    box.write({ "pkg/extensions/tool.ts": "", "pkg/skills/lint/SKILL.md": skillFile("lint", "d"), "other/prompts/x.md": "x" }, box.home);
    const tool = join(box.home, "pkg/extensions/tool.ts");
    const settings: ScopedSettings = { global: { packages: ["~/other", "~/pkg"], extensions: ["+keep"] } };
    const off = toggle(box, settings, "extensions", tool, false);
    assert.deepEqual(off.plan, { scope: "global", key: "packages", value: ["~/other", { source: "~/pkg", extensions: ["-extensions/tool.ts"] }] });
    assert.equal(off.enabledAfter, false);
    const lint = join(box.home, "pkg/skills/lint/SKILL.md");
    const lintOff = toggle(box, off.next, "skills", lint, false);
    assert.deepEqual((lintOff.plan.value as unknown[])[1], { source: "~/pkg", extensions: ["-extensions/tool.ts"], skills: ["-skills/lint/SKILL.md"] });
    const back = toggle(box, off.next, "extensions", tool, true);
    assert.deepEqual((back.plan.value as unknown[])[1], { source: "~/pkg", extensions: ["+extensions/tool.ts"] });
    assert.equal(back.enabledAfter, true);
    assert.deepEqual(settings.global!.packages, ["~/other", "~/pkg"], "the input is not changed");
  } finally {
    box.close();
  }
});

test("a package listed twice: the entry that won is the one edited", () => {
  const box = sandbox();
  try {
    box.write({ "pkg/prompts/p.md": "p" }, box.home);
    const path = join(box.home, "pkg/prompts/p.md");
    const { plan, enabledAfter } = toggle(
      box,
      { global: { packages: ["~/pkg"] }, project: { packages: [{ source: join(box.home, "pkg"), prompts: [] }, "~/pkg"] } },
      "prompts",
      path,
      false,
    );
    const expected: ResourceTogglePlan = {
      scope: "project",
      key: "packages",
      value: [
        { source: join(box.home, "pkg"), prompts: [] },
        { source: "~/pkg", prompts: ["-prompts/p.md"] },
      ],
    };
    assert.deepEqual(plan, expected);
    assert.equal(enabledAfter, false);
  } finally {
    box.close();
  }
});

test("unknown paths, built-ins, -e paths and untrusted projects are refused with typed errors", () => {
  const box = sandbox();
  try {
    box.write({ "extensions/mcp.ts": "", "extensions/ok.ts": "" }, box.agentDir);
    box.write({ "skills/s/SKILL.md": skillFile("s", "d") }, box.projectDir);
    box.write({ "cli.ts": "" }, box.root);
    const base = { agentDir: box.agentDir, cwd: box.cwd, homeDir: box.home, settings: {} };
    const { resources } = discoverResources({ ...base, projectTrusted: true, builtinNames: ["mcp"], cliExtensions: [join(box.root, "cli.ts")] });
    const plan = (type: ResourceType, path: string, projectTrusted = true) =>
      planResourceToggle({ ...base, projectTrusted, resources, type, path, enabled: false });
    refused(() => plan("extensions", join(box.agentDir, "extensions/nope.ts")), "unknownResource");
    refused(() => plan("extensions", join(box.agentDir, "extensions/mcp.ts")), "unknownResource");
    refused(() => plan("skills", join(box.agentDir, "extensions/ok.ts")), "unknownResource");
    refused(() => plan("extensions", join(box.root, "cli.ts")), "cliResource");
    refused(() => plan("skills", join(box.projectDir, "skills/s/SKILL.md"), false), "untrusted");
    refused(
      () =>
        planResourceToggle({
          ...base,
          projectTrusted: true,
          resources,
          type: "skills",
          path: join(box.projectDir, "skills/s/SKILL.md"),
          enabled: false,
          cwd: undefined,
        }),
      "untrusted",
    );
    const gone = resources.map((r) => ({ ...r, origin: "package" as const, source: join(box.root, "no-such-package") }));
    refused(
      () =>
        planResourceToggle({
          ...base,
          projectTrusted: true,
          resources: gone,
          type: "extensions",
          path: join(box.agentDir, "extensions/ok.ts"),
          enabled: false,
        }),
      "unknownResource",
    );
  } finally {
    box.close();
  }
});
