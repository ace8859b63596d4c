import assert from "node:assert/strict";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { readSettings } from "../../src/settings/read.js";
import { writeSetting } from "../../src/settings/write.js";
import { TrustError } from "../../src/trust/errors.js";
import { findProjectResources, needsTrust, PROJECT_RESOURCES, untrustedResourcesWarning } from "../../src/trust/resources.js";
import { TrustStore } from "../../src/trust/store.js";
import { layout, put, tempRoot } from "@knightcode/repo/test/settings/fixtures";

const fresh = tempRoot("trust");

function trustError(run: () => unknown, code: string): TrustError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof TrustError, `expected a TrustError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected a ${code} TrustError`);
}

async function rejectsTrust(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => error instanceof TrustError && error.code === code);
}

describe("project trust", () => {
  test("set and read a decision; undecided is null; null forgets", async () => {
    const { agentDir, cwd } = layout(fresh);
    const store = new TrustStore(agentDir);
    assert.equal(store.read(cwd).trusted, null);
    await store.set(cwd, true);
    assert.deepEqual(store.read(cwd), { trusted: true, decidedBy: realpathSync(cwd), needsTrust: false, found: [], warnings: [] });
    await store.set(cwd, false);
    assert.equal(store.read(cwd).trusted, false);
    assert.equal(new TrustStore(agentDir).decisionFor(cwd), false, "another instance sees the same file");
    await store.set(cwd, null);
    assert.equal(store.read(cwd).trusted, null);
    const file = JSON.parse(readFileSync(join(agentDir, "trust.json"), "utf8")) as { version: number; projects: object };
    assert.deepEqual(file, { version: 1, projects: {} });
  });

  test("the store keeps real paths and a decidedAt time", async () => {
    const { agentDir, cwd } = layout(fresh);
    const link = join(cwd, "..", "link-to-project");
    symlinkSync(cwd, link);
    await new TrustStore(agentDir).set(link, true);
    const file = JSON.parse(readFileSync(join(agentDir, "trust.json"), "utf8")) as { projects: Record<string, { trusted: boolean; decidedAt: string }> };
    const entry = file.projects[realpathSync(cwd)];
    assert.equal(entry?.trusted, true);
    assert.ok(!Number.isNaN(Date.parse(entry?.decidedAt ?? "")));
    assert.equal(new TrustStore(agentDir).read(cwd).trusted, true);
  });

  test("a folder without a decision uses its nearest decided ancestor", async () => {
    const { agentDir, cwd } = layout(fresh);
    const store = new TrustStore(agentDir);
    const deep = join(cwd, "packages", "app", "src");
    const other = join(cwd, "packages", "vendor");
    mkdirSync(deep, { recursive: true });
    mkdirSync(other, { recursive: true });
    await store.set(cwd, true);
    await store.set(other, false);
    assert.equal(store.read(deep).trusted, true);
    assert.equal(store.read(deep).decidedBy, realpathSync(cwd));
    assert.equal(store.read(join(other)).trusted, false);
    assert.equal(store.read(join(cwd, "..")).trusted, null, "a decision never reaches up to a parent");
    await store.set(join(cwd, "packages", "app"), false);
    assert.equal(store.read(deep).trusted, false, "the nearest decision wins");
  });

  test("needsTrust finds project resources and says which", () => {
    const { cwd } = layout(fresh);
    assert.deepEqual(needsTrust(cwd), { needsTrust: false, found: [] });
    const dir = join(cwd, ".knightcode");
    mkdirSync(dir);
    writeFileSync(join(dir, "notes.txt"), "not a resource");
    mkdirSync(join(dir, "mcp.json"));
    assert.deepEqual(needsTrust(cwd), { needsTrust: false, found: [] }, "a folder named like a file resource is not one");
    writeFileSync(join(dir, "settings.json"), "{}");
    mkdirSync(join(dir, "extensions"));
    writeFileSync(join(dir, "skills"), "a file named like a folder resource is not one");
    assert.deepEqual(needsTrust(cwd), { needsTrust: true, found: ["settings.json", "extensions/"] });
    for (const name of ["prompts", "themes"]) mkdirSync(join(dir, name));
    writeFileSync(join(dir, "environments.json"), "[]");
    assert.deepEqual(findProjectResources(cwd), ["settings.json", "extensions/", "prompts/", "themes/", "environments.json"]);
    assert.deepEqual(untrustedResourcesWarning(cwd, ["settings.json", "extensions/"]), {
      message: "project resources skipped until trusted: settings.json, extensions/",
      source: "trust",
      path: dir,
    });
    assert.equal(PROJECT_RESOURCES.length, 7);
  });

  test("read reports needsTrust and found next to the decision", async () => {
    const { agentDir, cwd, projectFile } = layout(fresh);
    put(projectFile, { theme: "p" });
    const state = new TrustStore(agentDir).read(cwd);
    assert.deepEqual([state.trusted, state.needsTrust, state.found], [null, true, ["settings.json"]]);
  });

  test("a cwd that is not an existing directory is notADirectory", async () => {
    const { agentDir, cwd } = layout(fresh);
    const store = new TrustStore(agentDir);
    const file = join(cwd, "file.txt");
    writeFileSync(file, "x");
    for (const path of [join(cwd, "missing"), file, join(file, "below")]) {
      trustError(() => store.read(path), "notADirectory");
      await rejectsTrust(store.set(path, true), "notADirectory");
    }
    assert.equal(existsSync(join(agentDir, "trust.json")), false);
    assert.equal(store.decisionFor(join(cwd, "missing")), null);
  });

  test("a corrupt store reads as undecided with a warning and is never overwritten", async () => {
    const { agentDir, cwd } = layout(fresh);
    const path = join(agentDir, "trust.json");
    const store = new TrustStore(agentDir);
    for (const broken of ['{"version":1,"projects":{\n  "/x": {"trusted": tru}}}\n', '{"version": 2, "projects": {}}\n', '{"projects": []}\n', "[]\n"]) {
      writeFileSync(path, broken);
      const state = store.read(cwd);
      assert.equal(state.trusted, null);
      assert.equal(state.warnings.length, 1);
      assert.equal(state.warnings[0]?.source, "trust");
      assert.equal(state.warnings[0]?.path, path);
      await rejectsTrust(store.set(cwd, true), "corrupt");
      assert.equal(readFileSync(path, "utf8"), broken);
    }
    writeFileSync(path, '{"version":1,"projects":{\n  "/x": {"trusted": tru}}}\n');
    assert.deepEqual([store.read(cwd).warnings[0]?.line, store.read(cwd).warnings[0]?.column], [2, 21]);
  });

  test("a malformed entry counts as undecided and other decisions still hold", async () => {
    const { agentDir, cwd } = layout(fresh);
    const real = realpathSync(cwd);
    writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ version: 1, projects: { [real]: { trusted: "yes" }, "/elsewhere": { trusted: true } } }));
    const store = new TrustStore(agentDir);
    assert.equal(store.read(cwd).trusted, null);
    assert.equal(store.read(cwd).warnings.length, 1);
    await store.set(cwd, true);
    const file = JSON.parse(readFileSync(join(agentDir, "trust.json"), "utf8")) as { projects: Record<string, { trusted: unknown }> };
    assert.equal(file.projects[real]?.trusted, true);
    assert.equal(file.projects["/elsewhere"]?.trusted, true);
  });

  test("concurrent decisions for different projects all land", async () => {
    const { agentDir } = layout(fresh);
    const folders = Array.from({ length: 20 }, () => fresh());
    await Promise.all(folders.map((folder, i) => new TrustStore(agentDir).set(folder, i % 2 === 0)));
    const store = new TrustStore(agentDir);
    for (const [i, folder] of folders.entries()) assert.equal(store.read(folder).trusted, i % 2 === 0);
  });

  test("the store gates project settings: reads and writes follow the decision", async () => {
    const { agentDir, cwd, projectFile } = layout(fresh);
    put(projectFile, { theme: "project" });
    const trust = new TrustStore(agentDir);
    assert.equal(readSettings({ agentDir, cwd, trust }).effective.theme, "dark");
    await assert.rejects(writeSetting({ agentDir, scope: "project", cwd, trust, key: "theme", value: "x" }), { code: "untrusted" });
    await trust.set(cwd, true);
    assert.equal(readSettings({ agentDir, cwd, trust }).effective.theme, "project");
    await writeSetting({ agentDir, scope: "project", cwd, trust, key: "theme", value: "x" });
    await trust.set(cwd, false);
    const snap = readSettings({ agentDir, cwd, trust });
    assert.equal(snap.effective.theme, "dark");
    assert.equal(snap.versions.project, "none");
  });

  test("a store that cannot be written is an io error", async () => {
    const { agentDir, cwd } = layout(fresh);
    const blocker = join(agentDir, "a-file");
    writeFileSync(blocker, "");
    await rejectsTrust(new TrustStore(join(blocker, "agent")).set(cwd, true), "io");
  });
});
