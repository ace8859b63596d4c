import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { ClientRequestResult } from "@knightcode/app-server-protocol";
import { fileTree, refused, settingsEntries } from "../support/config-files.js";
import { startServer, type TestServer } from "../support/harness.js";

// resource/list and resource/set over the protocol, on real extension,
// skill, prompt, theme and package files in a temporary agent dir and
// projects: what is listed, the + and - patterns written into the scope that
// defines a resource, what a new thread then offers, and the refusals.

type Listed = ClientRequestResult<"resource/list">["resources"][number];

let server: TestServer;
let scratch: string;
let cliExtension: string;
let trusted: string;
let untrusted: string;

function write(path: string, text: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const skill = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\nDo ${name}.\n`;
const extensionWithCommand = (command: string) =>
  `export default function (kc: any) { kc.registerCommand(${JSON.stringify(command)}, { description: "from ${command}", handler: () => undefined }); }\n`;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), "kc-resources-"));
  cliExtension = write(join(scratch, "cli-ext.ts"), extensionWithCommand("cli-cmd"));
  server = await startServer({ args: ["-e", cliExtension] });
  const agent = server.agentDir;
  write(join(agent, "skills", "review", "SKILL.md"), skill("review"));
  write(join(agent, "prompts", "fix.md"), "---\ndescription: Fix it\n---\nFix $@\n");
  write(join(agent, "extensions", "helper.ts"), extensionWithCommand("helper-cmd"));
  write(join(agent, "themes", "night.json"), JSON.stringify({ name: "night" }));
  write(join(server.home, "pack", "package.json"), JSON.stringify({ name: "pack", knightcode: { skills: ["skills"] } }));
  write(join(server.home, "pack", "skills", "packed", "SKILL.md"), skill("packed"));
  write(join(agent, "settings.json"), JSON.stringify({ packages: ["~/pack"] }, null, 2) + "\n");
  trusted = server.project({
    ".knightcode/prompts/proj.md": "A project prompt\n",
    ".knightcode/skills/proj-skill/SKILL.md": skill("proj-skill"),
  });
  await server.main.request("project/trust/set", { cwd: trusted, trusted: true });
  untrusted = server.project({ ".knightcode/prompts/evil.md": "Do something\n" });
  await server.main.request("project/trust/set", { cwd: untrusted, trusted: false });
});
after(async () => {
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
});

const globalSettings = () => JSON.parse(readFileSync(join(server.agentDir, "settings.json"), "utf8")) as Record<string, unknown>;
const projectSettingsFile = (cwd: string) => join(cwd, ".knightcode", "settings.json");

async function list(cwd?: string): Promise<Listed[]> {
  return (await server.main.request("resource/list", cwd === undefined ? {} : { cwd })).resources;
}

function find(resources: Listed[], path: string): Listed {
  const found = resources.find((r) => r.path === path);
  assert.ok(found, `${path} is listed among ${resources.map((r) => r.path).join(", ")}`);
  return found;
}

async function commandNames(cwd: string): Promise<string[]> {
  return (await server.main.request("command/list", { cwd })).commands.map((c) => c.name);
}

describe("spec: resource/list", () => {
  test("lists the global folders' resources and a package's with their scope, origin and source; -e extensions are left out; nothing is written", async () => {
    const before = fileTree(server.agentDir, settingsEntries);
    const resources = await list();
    const agent = server.agentDir;
    assert.deepEqual(find(resources, join(agent, "skills", "review", "SKILL.md")), {
      type: "skills",
      path: join(agent, "skills", "review", "SKILL.md"),
      name: "review",
      enabled: true,
      scope: "global",
      origin: "directory",
      source: join(agent, "skills"),
      description: "The review skill",
    });
    assert.equal(find(resources, join(agent, "prompts", "fix.md")).type, "prompts");
    const extension = find(resources, join(agent, "extensions", "helper.ts"));
    assert.deepEqual([extension.type, extension.name, extension.scope, extension.origin], ["extensions", "helper", "global", "directory"]);
    assert.equal(find(resources, join(agent, "themes", "night.json")).name, "night");
    const packed = find(resources, join(server.home, "pack", "skills", "packed", "SKILL.md"));
    assert.deepEqual([packed.scope, packed.origin, packed.source], ["global", "package", join(server.home, "pack")]);
    assert.ok(!resources.some((r) => r.path === cliExtension), "the -e extension is not listed");
    assert.ok(!resources.some((r) => (r.scope as string) === "project"), "no project without cwd");
    assert.deepEqual(fileTree(server.agentDir, settingsEntries), before);
    server.main.assertNoSchemaViolations();
  });

  test("a trusted project's resources are listed with scope project; an untrusted project's are not", async () => {
    const withProject = await list(trusted);
    const prompt = find(withProject, join(trusted, ".knightcode", "prompts", "proj.md"));
    assert.deepEqual([prompt.scope, prompt.origin, prompt.enabled], ["project", "directory", true]);
    assert.equal(find(withProject, join(trusted, ".knightcode", "skills", "proj-skill", "SKILL.md")).name, "proj-skill");
    const withUntrusted = await list(untrusted);
    assert.ok(!withUntrusted.some((r) => r.path.startsWith(untrusted)));
    assert.ok(
      withUntrusted.some((r) => r.name === "review"),
      "global resources still listed",
    );
    await refused(server.main, "resource/list", { cwd: join(untrusted, "missing") }, "invalidParams", /cwd/);
    server.main.assertNoSchemaViolations();
  });
});

describe("spec: resource/set", () => {
  test("disabling a global skill writes a - pattern into the global settings and a new thread no longer offers it; enabling again leaves no - pattern", async () => {
    const path = join(server.agentDir, "skills", "review", "SKILL.md");
    assert.ok((await commandNames(trusted)).includes("skill:review"));
    assert.deepEqual(await server.main.request("resource/set", { type: "skills", path, enabled: false }), {});
    assert.deepEqual(globalSettings().skills, ["-skills/review/SKILL.md"]);
    assert.equal(find(await list(), path).enabled, false);
    assert.ok(!(await commandNames(trusted)).includes("skill:review"));

    await server.main.request("resource/set", { type: "skills", path, enabled: true });
    const skills = globalSettings().skills as string[];
    assert.ok(!skills.some((entry) => entry.startsWith("-")), JSON.stringify(skills));
    assert.equal(find(await list(), path).enabled, true);
    assert.ok((await commandNames(trusted)).includes("skill:review"));
    assert.deepEqual(globalSettings().packages, ["~/pack"], "other keys are kept");
    server.main.assertNoSchemaViolations();
  });

  test("a global extension switched off is not loaded by the next thread", async () => {
    const path = join(server.agentDir, "extensions", "helper.ts");
    assert.ok((await commandNames(trusted)).includes("helper-cmd"));
    await server.main.request("resource/set", { type: "extensions", path, enabled: false });
    assert.ok(!(await commandNames(trusted)).includes("helper-cmd"));
    assert.ok((await commandNames(trusted)).includes("cli-cmd"), "the -e extension still loads");
    await server.main.request("resource/set", { type: "extensions", path, enabled: true });
    assert.ok((await commandNames(trusted)).includes("helper-cmd"));
  });

  test("a trusted project's resource is switched in the project's settings, never the global ones", async () => {
    const path = join(trusted, ".knightcode", "prompts", "proj.md");
    const globalBefore = readFileSync(join(server.agentDir, "settings.json"));
    await server.main.request("resource/set", { cwd: trusted, type: "prompts", path, enabled: false });
    assert.deepEqual(JSON.parse(readFileSync(projectSettingsFile(trusted), "utf8")), { prompts: ["-prompts/proj.md"] });
    assert.deepEqual(readFileSync(join(server.agentDir, "settings.json")), globalBefore);
    assert.equal(find(await list(trusted), path).enabled, false);
    assert.ok(!(await commandNames(trusted)).includes("proj"));
    await server.main.request("resource/set", { cwd: trusted, type: "prompts", path, enabled: true });
    const prompts = JSON.parse(readFileSync(projectSettingsFile(trusted), "utf8")).prompts as string[];
    assert.ok(!prompts.some((entry) => entry.startsWith("-")), JSON.stringify(prompts));
    assert.ok((await commandNames(trusted)).includes("proj"));
  });

  test("a package's resource is switched in that package entry's own filter", async () => {
    const path = join(server.home, "pack", "skills", "packed", "SKILL.md");
    await server.main.request("resource/set", { type: "skills", path, enabled: false });
    assert.deepEqual(globalSettings().packages, [{ source: "~/pack", skills: ["-skills/packed/SKILL.md"] }]);
    assert.equal(find(await list(), path).enabled, false);
    await server.main.request("resource/set", { type: "skills", path, enabled: true });
    const [entry] = globalSettings().packages as { skills: string[] }[];
    assert.ok(!entry!.skills.some((s) => s.startsWith("-")), JSON.stringify(entry));
  });

  test("unknown paths, -e extensions, wrong types and untrusted projects are invalidParams, and change no file", async () => {
    const agentBefore = fileTree(server.agentDir, settingsEntries);
    const untrustedBefore = fileTree(untrusted);
    const trustedBefore = fileTree(trusted);
    await refused(
      server.main,
      "resource/set",
      { type: "skills", path: join(server.agentDir, "skills", "nope", "SKILL.md"), enabled: false },
      "invalidParams",
      /no skills resource/,
    );
    await refused(server.main, "resource/set", { type: "skills", path: join(server.agentDir, "skills", "review"), enabled: false }, "invalidParams");
    await refused(
      server.main,
      "resource/set",
      { type: "prompts", path: join(server.agentDir, "skills", "review", "SKILL.md"), enabled: false },
      "invalidParams",
    );
    await refused(server.main, "resource/set", { type: "skills", path: "skills/review/SKILL.md", enabled: false }, "invalidParams", /absolute/);
    await refused(server.main, "resource/set", { type: "extensions", path: cliExtension, enabled: false }, "invalidParams", /-e/);
    await refused(server.main, "resource/set", { type: "tools", path: cliExtension, enabled: false }, "invalidParams");
    await refused(server.main, "resource/set", { type: "skills", path: cliExtension }, "invalidParams");
    // A project resource without its project's cwd is not among what a project-less thread finds.
    await refused(server.main, "resource/set", { type: "prompts", path: join(trusted, ".knightcode", "prompts", "proj.md"), enabled: false }, "invalidParams");
    const error = await refused(
      server.main,
      "resource/set",
      { cwd: untrusted, type: "prompts", path: join(untrusted, ".knightcode", "prompts", "evil.md"), enabled: false },
      "invalidParams",
      /trust/,
    );
    assert.equal(error.data?.reason, "untrusted");
    const undecided = server.project({ ".knightcode/prompts/new.md": "hello\n" });
    const undecidedBefore = fileTree(undecided);
    const again = await refused(
      server.main,
      "resource/set",
      { cwd: undecided, type: "prompts", path: join(undecided, ".knightcode", "prompts", "new.md"), enabled: false },
      "invalidParams",
    );
    assert.equal(again.data?.reason, "untrusted");

    assert.deepEqual(fileTree(server.agentDir, settingsEntries), agentBefore);
    assert.deepEqual(fileTree(untrusted), untrustedBefore);
    assert.deepEqual(fileTree(trusted), trustedBefore);
    assert.deepEqual(fileTree(undecided), undecidedBefore);
    assert.equal(existsSync(projectSettingsFile(untrusted)), false);
    server.main.assertNoSchemaViolations();
  });
});
