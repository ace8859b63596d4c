import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { projectFolderName, resolveSessionDir, sessionFileName, SESSION_DIR_ENV } from "../../src/session/paths.js";
import { tempDir } from "./helpers.js";

const dir = tempDir("paths");

describe("session paths", () => {
  test("resolveSessionDir: flag, then variable, then setting, then a folder per project", () => {
    const base = { agentDir: "/agent", cwd: "/work/app", baseDir: "/launch" };
    const env = { [SESSION_DIR_ENV]: "/from-env", HOME: "/home/u" };
    assert.deepEqual(resolveSessionDir({ ...base, env, override: "/flag", settingsSessionDir: "/setting" }), { dir: "/flag", source: "override" });
    assert.deepEqual(resolveSessionDir({ ...base, env, settingsSessionDir: "/setting" }), { dir: "/from-env", source: "env" });
    assert.deepEqual(resolveSessionDir({ ...base, env: { HOME: "/home/u" }, settingsSessionDir: "/setting" }), { dir: "/setting", source: "settings" });
    assert.deepEqual(resolveSessionDir({ ...base, env: {} }), { dir: join("/agent/sessions", projectFolderName("/work/app")), source: "default" });
    // Blank values count as unset; relative ones resolve against the launch folder, a relative setting against the agent dir.
    assert.equal(resolveSessionDir({ ...base, env: { [SESSION_DIR_ENV]: " " }, override: "" }).source, "default");
    assert.equal(resolveSessionDir({ ...base, env: {}, override: "rel" }).dir, "/launch/rel");
    assert.equal(resolveSessionDir({ ...base, env: { [SESSION_DIR_ENV]: "rel" } }).dir, "/launch/rel");
    assert.equal(resolveSessionDir({ ...base, env: {}, settingsSessionDir: "rel" }).dir, "/agent/rel");
    assert.equal(resolveSessionDir({ ...base, env: { HOME: "/home/u" }, settingsSessionDir: "~/s" }).dir, "/home/u/s");
  });

  test("projectFolderName is readable, safe, stable, and tells apart paths whose slugs agree", () => {
    const name = projectFolderName("/home/u/My Project (v2)");
    assert.match(name, /^home-u-my-project-v2-[0-9a-f]{10}$/);
    assert.equal(projectFolderName("/home/u/My Project (v2)"), name);
    assert.equal(projectFolderName("/home/u/My Project (v2)/"), name);
    const pairs = [
      ["/a/b-c", "/a-b/c"],
      ["/x/Proj", "/x/proj"],
      ["/x/été", "/x/ete"],
      ["/x/a b", "/x/a_b"],
    ];
    for (const [one, two] of pairs) assert.notEqual(projectFolderName(one!), projectFolderName(two!), `${one} vs ${two}`);
    const long = projectFolderName(`/${"deep/".repeat(100)}end`);
    assert.ok(long.length <= 59 && long.startsWith("deep-") && long.includes("deep-end-"), long);
    assert.match(projectFolderName("/"), /^root-[0-9a-f]{10}$/);
    for (const path of ["/", "/a/b", "/tmp/..hidden", "/-dash-", `/${"é".repeat(300)}`])
      assert.match(projectFolderName(path), /^[a-z0-9][a-z0-9._-]*-[0-9a-f]{10}$/);
  });

  test("a symlinked project shares its target's folder", () => {
    const real = join(dir, "real-project");
    mkdirSync(real);
    const link = join(dir, "linked-project");
    symlinkSync(real, link);
    assert.equal(projectFolderName(link), projectFolderName(real));
  });

  test("sessionFileName sorts by creation time and refuses unsafe ids", () => {
    const id = "0b6c3f0e-7a51-4c1e-9a55-1f1b2c3d4e5f";
    const times = ["2024-12-31T23:59:59.999Z", "2025-01-01T00:00:00.000Z", "2025-01-01T00:00:00.001Z", "2025-10-01T09:00:00.000Z"];
    const names = times.map((t) => sessionFileName(t, id));
    assert.deepEqual([...names].reverse().sort(), names);
    assert.equal(names[1], `2025-01-01T00-00-00-000Z_${id}.jsonl`);
    for (const bad of ["../x", "a/b", "", "a\u0000"]) assert.throws(() => sessionFileName(times[0]!, bad));
    assert.throws(() => sessionFileName("not a date", id));
  });
});
