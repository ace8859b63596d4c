import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { expandSlashInput, listCommands } from "../../src/resources/commands.js";
import { discoverResources } from "../../src/resources/discover.js";
import { loadSkill, renderSkillsSection, skillCommandMessage } from "../../src/resources/skills.js";
import { loadPromptTemplate } from "../../src/resources/templates.js";
import { ResourceError, type Resource } from "../../src/resources/types.js";
import { sandbox, skillFile } from "./fixture.js";

function resource(fields: Partial<Resource> & Pick<Resource, "type" | "name">): Resource {
  return { path: `/r/${fields.scope ?? "global"}/${fields.type}/${fields.name}`, enabled: true, scope: "global", origin: "directory", source: "/r", ...fields };
}

test("commands: extension commands, templates, skill:<name>; sorted, first of that order wins", () => {
  const resources = [
    resource({ type: "prompts", name: "review", description: "global template" }),
    resource({ type: "prompts", name: "review", scope: "project", description: "project template" }),
    resource({ type: "prompts", name: "deploy", description: "template that an extension overrides" }),
    resource({ type: "prompts", name: "off", enabled: false }),
    resource({ type: "prompts", name: "has space" }),
    resource({ type: "prompts", name: "hidden", shadowedBy: "/elsewhere" }),
    resource({ type: "skills", name: "pdf", description: "PDF work" }),
    resource({ type: "skills", name: "pdf", origin: "package", description: "packaged pdf" }),
    resource({ type: "skills", name: "review" }),
    resource({ type: "extensions", name: "deploy" }),
    resource({ type: "themes", name: "dark" }),
  ];
  const commands = listCommands(resources, [
    { name: "/deploy", description: "from code" },
    { name: "mcp" },
    { name: "deploy", description: "registered twice" },
  ]);
  assert.deepEqual(commands, [
    { name: "deploy", description: "from code" },
    { name: "mcp", description: "" },
    { name: "review", description: "project template" },
    { name: "skill:pdf", description: "PDF work" },
    { name: "skill:review", description: "" },
  ]);
});

test("commands from a real discovery: the project's template wins over the global one", () => {
  const box = sandbox();
  try {
    box.write({ "prompts/fix.md": "---\ndescription: global fix\n---\nx", "skills/a/SKILL.md": skillFile("lint", "Lints") }, box.agentDir);
    box.write({ "prompts/fix.md": "---\ndescription: project fix\n---\ny" }, box.projectDir);
    const { resources } = discoverResources({ agentDir: box.agentDir, cwd: box.cwd, projectTrusted: true, settings: {}, homeDir: box.home });
    assert.deepEqual(listCommands(resources, []), [
      { name: "fix", description: "project fix" },
      { name: "skill:lint", description: "Lints" },
    ]);
  } finally {
    box.close();
  }
});

test("slash input expands templates and skills from the files", () => {
  const box = sandbox();
  try {
    box.write(
      {
        "prompts/fix.md": "---\ndescription: Fix an issue\n---\nFix $1, then run ${@:2}.\n",
        "skills/pdf/SKILL.md": skillFile("pdf", "PDF work", "Use scripts/fill.py to fill forms."),
      },
      box.agentDir,
    );
    const { resources } = discoverResources({ agentDir: box.agentDir, projectTrusted: false, settings: {}, homeDir: box.home });
    const fix = expandSlashInput(`/fix "the login bug" npm test`, resources);
    assert.equal(fix?.kind, "prompt");
    assert.equal(fix?.message, "Fix the login bug, then run npm test.\n");
    const skill = expandSlashInput("/skill:pdf fill in form.pdf", resources);
    assert.equal(skill?.kind, "skill");
    const skillDir = join(box.agentDir, "skills/pdf");
    assert.equal(
      skill?.message,
      [
        `Use the skill "pdf" for this request. Its instructions follow (from ${skillDir}/SKILL.md; relative paths in it are relative to ${skillDir}).`,
        "",
        `<skill name="pdf" location="${skillDir}/SKILL.md">`,
        "Use scripts/fill.py to fill forms.",
        "</skill>",
        "",
        "fill in form.pdf",
      ].join("\n"),
    );
    assert.equal(expandSlashInput("/unknown x", resources), undefined);
    assert.equal(expandSlashInput("/skill:fix", resources), undefined, "a template is not a skill");
    assert.equal(expandSlashInput("plain text", resources), undefined);
    const disabled = resources.map((r) => ({ ...r, enabled: false }));
    assert.equal(expandSlashInput("/fix", disabled), undefined);
    const vanished = resources.map((r) => ({ ...r, path: `${r.path}.gone` }));
    assert.throws(
      () => expandSlashInput("/fix", vanished),
      (e: unknown) => e instanceof ResourceError && e.code === "unreadable",
    );
  } finally {
    box.close();
  }
});

test("skill and template files load with their frontmatter and body", () => {
  const box = sandbox();
  try {
    box.write(
      { "s/SKILL.md": "---\nname: s\ndescription: >\n  Long description\n  over lines\nlicense: MIT\n---\n\n# Body\n", "p/plain.md": "Just text $1" },
      box.root,
    );
    const skill = loadSkill(join(box.root, "s/SKILL.md"));
    assert.equal(skill.name, "s");
    assert.equal(skill.description, "Long description over lines");
    assert.equal(skill.attributes.license, "MIT");
    assert.equal(skill.body, "# Body\n");
    assert.equal(skill.baseDir, join(box.root, "s"));
    const template = loadPromptTemplate(join(box.root, "p/plain.md"));
    assert.deepEqual(template, { name: "plain", path: join(box.root, "p/plain.md"), description: "Just text $1", body: "Just text $1" });
    assert.equal(skillCommandMessage(skill, "  ").endsWith("</skill>"), true, "no request line without arguments");
  } finally {
    box.close();
  }
});

test("the skills section lists name, description and location; skills without a description are left out", () => {
  assert.equal(renderSkillsSection([]), "");
  assert.equal(renderSkillsSection([{ name: "x", path: "/x/SKILL.md" }]), "");
  const section = renderSkillsSection([
    { name: "review", description: "Reviews <diffs> & more", path: "/a/review/SKILL.md" },
    { name: "bare", path: "/a/bare/SKILL.md" },
  ]);
  assert.match(section, /read its SKILL\.md with the read tool/);
  assert.match(
    section,
    /<name>review<\/name>\n\s+<description>Reviews &lt;diffs&gt; &amp; more<\/description>\n\s+<location>\/a\/review\/SKILL\.md<\/location>/,
  );
  assert.doesNotMatch(section, /bare/);
});
