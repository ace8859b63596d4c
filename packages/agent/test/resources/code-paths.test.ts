import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { codePathOf, type CodePathOptions } from "../../src/resources/code-paths.js";
import { sandbox, type Sandbox } from "./fixture.js";

function setup(t: TestContext): { box: Sandbox; options: (trusted?: string[], more?: Partial<CodePathOptions>) => CodePathOptions } {
  const box = sandbox();
  t.after(() => box.close());
  const options = (trusted: string[] = [box.cwd], more: Partial<CodePathOptions> = {}): CodePathOptions => ({
    agentDir: box.agentDir,
    cwd: box.cwd,
    cliExtensions: [],
    homeDir: box.home,
    isTrusted: (folder) => trusted.some((dir) => realpathSync(dir) === realpathSync(folder)),
    ...more,
  });
  return { box, options };
}

test("an extension a trusted project's settings name outside .knightcode/ is code, with its relative imports and the files they would load", (t) => {
  const { box, options } = setup(t);
  box.write(
    {
      ".knightcode/settings.json": JSON.stringify({ extensions: ["../tools/lint-ext.js"] }),
      "tools/lint-ext.js": `import { a } from "./rules/a.js";\nconst b = await import("./optional.js");\nexport * from './c';\nexport default () => a;\n`,
      "tools/rules/a.ts": `import "../deep.mjs";\nexport const a = 1;\n`,
      "tools/deep.mjs": "export {};\n",
      "tools/c.ts": "export const c = 1;\n",
      "tools/unrelated.txt": "x",
      "tools/other.js": "export {};\n",
    },
    box.cwd,
  );
  const of = (rel: string) => codePathOf(join(box.cwd, rel), options());
  assert.equal(of("tools/lint-ext.js")?.via, "settings");
  assert.equal(of("tools/lint-ext.js")?.namedBy, join(box.projectDir, "settings.json"));
  for (const rel of ["tools/rules/a.ts", "tools/rules/a.js", "tools/deep.mjs", "tools/c.ts", "tools/optional.js", "tools/optional.ts"]) {
    assert.equal(of(rel)?.via, "import", rel);
  }
  for (const rel of ["tools/unrelated.txt", "tools/other.js", "src/app.ts"]) assert.equal(of(rel), undefined, rel);
  assert.equal(codePathOf(join(box.cwd, "tools/lint-ext.js"), options([])), undefined, "an untrusted project's settings name nothing");
});

test("packages and folder entries count as a whole; an entry that does not exist yet counts too", (t) => {
  const { box, options } = setup(t);
  box.write(
    {
      ".knightcode/settings.json": JSON.stringify({
        packages: ["../vendor/kit", { source: "../vendor/filtered", extensions: ["+x.ts"] }, "npm:remote"],
        extensions: ["../exts", "../later.ts"],
      }),
      "vendor/kit/package.json": "{}",
      "vendor/filtered/extensions/x.ts": "export default () => {};\n",
      "exts/a.ts": "export default () => {};\n",
    },
    box.cwd,
  );
  for (const rel of ["vendor/kit/package.json", "vendor/kit/extensions/new.ts", "vendor/filtered/anything", "exts/b.ts", "later.ts", "later.ts/index.ts"]) {
    assert.ok(codePathOf(join(box.cwd, rel), options()), rel);
  }
  assert.equal(codePathOf(join(box.cwd, "vendor/other/x.ts"), options()), undefined);
});

test("global settings, the agent's extensions folder and -e count in every project", (t) => {
  const { box, options } = setup(t);
  box.write({ "settings.json": JSON.stringify({ extensions: [join(box.cwd, "hooks", "g.ts"), "~/personal/ext.ts"] }) }, box.agentDir);
  const cli = join(box.root, "cli-ext.ts");
  const of = (path: string) => codePathOf(path, options([], { cliExtensions: [cli] }));
  assert.equal(of(join(box.cwd, "hooks", "g.ts"))?.namedBy, join(box.agentDir, "settings.json"));
  assert.ok(of(join(box.home, "personal", "ext.ts")), "~ in settings is the home the settings use");
  assert.ok(of(join(box.agentDir, "extensions", "new.ts")));
  assert.equal(of(cli)?.via, "cli");
  assert.equal(of(join(box.cwd, "hooks", "other.ts")), undefined);
});

test("a thread below the project, and a link into the code, are seen", (t) => {
  const { box, options } = setup(t);
  box.write(
    {
      ".knightcode/settings.json": JSON.stringify({ extensions: ["../tools/lint-ext.ts"] }),
      "tools/lint-ext.ts": "export default () => {};\n",
      "sub/link-to-tools": { link: "../tools" },
    },
    box.cwd,
  );
  const nested = { ...options(), cwd: join(box.cwd, "sub") };
  assert.ok(codePathOf(join(box.cwd, "tools", "lint-ext.ts"), nested), "the project above the thread's folder is found from the target");
  assert.ok(codePathOf(join(box.cwd, "sub", "link-to-tools", "lint-ext.ts"), nested), "a link to the file is the file");
});

test("the imports of every module a folder loads are followed: an -e folder's index, a scanned folder, a package's extensions, the agent's extensions folder", (t) => {
  const { box, options } = setup(t);
  box.write(
    {
      "cli-ext/index.ts": `import { x } from "../shared/x.ts";\nexport default () => x;\n`,
      "shared/x.ts": `export * from "./deeper";\n`,
      "shared/deeper/index.cjs": "module.exports = {};\n",
      "scanned/a.ts": `import "../from-scanned.ts";\nexport default () => {};\n`,
      "vendor/kit/package.json": JSON.stringify({ knightcode: { extensions: ["main.ts"] } }),
      "vendor/kit/main.ts": `import "../kit-shared/y.js";\nexport default () => {};\n`,
      "file-ext.ts": `const opt = await import("./opt").catch(() => undefined);\nimport pad from "left-pad";\nexport default () => opt ?? pad;\n`,
      "node_modules/left-pad/package.json": JSON.stringify({ main: "lib/pad.js" }),
      "node_modules/left-pad/lib/pad.js": "module.exports = {};\n",
    },
    box.cwd,
  );
  box.write({ ".knightcode/settings.json": JSON.stringify({ extensions: ["../scanned"], packages: ["../vendor/kit"] }) }, box.cwd);
  box.write({ "extensions/global-ext/index.ts": `import "../../../../../project/outside-global.ts";\nexport default () => {};\n` }, box.agentDir);
  const cli = [join(box.cwd, "cli-ext"), join(box.cwd, "file-ext.ts")];
  const of = (rel: string) => codePathOf(join(box.cwd, rel), options([box.cwd], { cliExtensions: cli }));
  for (const rel of [
    "shared/x.ts",
    "shared/deeper/index.cjs",
    "shared/deeper/index.ts",
    "from-scanned.ts",
    "vendor/kit-shared/y.ts",
    "outside-global.ts",
    "opt/index.cjs",
    "opt/package.json",
    "opt.mts",
    "node_modules/left-pad/lib/pad.js",
    "node_modules/pad-core/index.js",
    "node_modules/any-other/index.js",
  ]) {
    assert.equal(of(rel)?.via, "import", rel);
  }
  assert.equal(of("node_modules")?.folder, true, "packages load each other: the node_modules folder an import resolves in is code as a whole");
  for (const rel of ["shared/other.ts", "vendor/elsewhere.ts", "sub/node_modules/x/index.js"]) assert.equal(of(rel), undefined, rel);
});
