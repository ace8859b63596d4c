import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test, type TestContext } from "node:test";
import { broadFolder } from "@knightcode/system/fs/broad-folders";
import { editTarget, verdict } from "../../src/approvals/policy.js";

function project(t: TestContext, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "kc-policy-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const write = (path: string) => ({ path, content: "x" });

test("the part of a bare repository's shape written last is asked about, in any order, and so is every write below the finished shape", (t) => {
  const parts = ["HEAD", "objects/info/x", "refs/heads/x"];
  const orders = [parts, [...parts].reverse(), [parts[1]!, parts[0]!, parts[2]!]];
  for (const order of orders) {
    const dir = project(t, { "README.md": "r" });
    order.forEach((part, index) => {
      const judged = verdict({ mode: "autoEdit", kind: "edit", input: write(`sub/${part}`), workspace: dir });
      const last = index === order.length - 1;
      assert.equal(judged.allow, !last, `${order.join(", ")}: ${part}`);
      if (last) assert.match(judged.reason ?? "", /sub a git repository by another name/);
      mkdirSync(dirname(join(dir, "sub", part)), { recursive: true });
      writeFileSync(join(dir, "sub", part), "");
    });
    for (const path of ["sub/config", "sub/hooks/pre-commit", "sub/HEAD", "sub/notes.txt"]) {
      assert.equal(verdict({ mode: "autoEdit", kind: "edit", input: write(path), workspace: dir }).allow, false, path);
    }
    assert.equal(verdict({ mode: "autoEdit", kind: "edit", input: write("other/config"), workspace: dir }).allow, true, "a config elsewhere is ordinary");
  }
});

test("HEAD with a commondir is a git dir too, and names are compared without case", (t) => {
  const dir = project(t, { "wt/commondir": "../.git\n" });
  assert.equal(verdict({ mode: "autoEdit", kind: "edit", input: write("wt/HEAD"), workspace: dir }).allow, false);
  // On a case-insensitive disk `REFS` is `refs`: the written name is compared without case.
  const other = project(t, { "x/HEAD": "ref: refs/heads/main\n", "x/objects/k": "" });
  assert.equal(verdict({ mode: "autoEdit", kind: "edit", input: write("x/REFS/k"), workspace: other }).allow, false);
});

test("the agent folder is a control folder wherever it lies", (t) => {
  const dir = project(t);
  const agentDir = join(dir, "agent");
  const judged = verdict({ mode: "autoEdit", kind: "edit", input: write("agent/extensions/x.ts"), workspace: dir, controls: { agentDir } });
  assert.equal(judged.allow, false);
  assert.match(judged.reason ?? "", /agent folder/);
  assert.equal(verdict({ mode: "autoEdit", kind: "edit", input: write("src/x.ts"), workspace: dir, controls: { agentDir } }).allow, true);
  const outside = verdict({ mode: "autoEdit", kind: "edit", input: write(join(agentDir, "settings.json")), workspace: project(t), controls: { agentDir } });
  assert.match(outside.reason ?? "", /outside the workspace.*agent folder/, "an outside write says what it also is");
});

test("a write through a link names the link and the real target", (t) => {
  const dir = project(t);
  const outside = project(t);
  symlinkSync(outside, join(dir, "out"));
  const judged = verdict({ mode: "ask", kind: "edit", input: write("out/a.txt"), workspace: dir });
  assert.equal(judged.reason, `writes outside the workspace: ${join(dir, "out", "a.txt")}, which resolves to ${join(outside, "a.txt")}`);
  assert.equal(
    verdict({ mode: "ask", kind: "edit", input: write(join(outside, "b.txt")), workspace: dir }).reason,
    `writes outside the workspace: ${join(outside, "b.txt")}`,
  );
});

test("~ is resolved as the write tool resolves it", () => {
  assert.equal(editTarget({ path: "~/notes.txt" }, "/somewhere"), join(homedir(), "notes.txt"));
  assert.equal(editTarget({ path: "~" }, "/somewhere"), homedir());
  assert.equal(editTarget({ path: "~other/x" }, "/somewhere"), "/somewhere/~other/x");
  assert.equal(editTarget({ path: "a\0b" }, "/somewhere"), undefined, "a path the tool refuses names no target");
});

test("broad folders: the root, home folders and system folders, but not the folders projects live in", (t) => {
  const cases: [string, string | undefined][] = [
    ["/", "the file system root"],
    [homedir(), "a home folder"],
    ["/home/someone", "a home folder"],
    ["/Users/someone", "a home folder"],
    ["/etc", "a system folder"],
    ["/etc/nginx", "a system folder"],
    ["/usr", "a system folder"],
    ["/usr/lib/node_modules", "a system folder"],
    ["/var", "a system folder"],
    ["/tmp", "a system folder"],
    ["/home", "a system folder"],
    ["/usr/src/app", undefined],
    ["/usr/local/src/tool", undefined],
    ["/opt/project", undefined],
    ["/srv/site", undefined],
    ["/var/www/site", undefined],
    [project(t), undefined],
    [join(homedir(), "code", "project"), undefined],
  ];
  for (const [folder, expected] of cases) assert.equal(broadFolder(folder, {}), expected, folder);
  const link = join(project(t), "root-link");
  symlinkSync("/", link);
  assert.equal(broadFolder(link, {}), "the file system root", "a link is followed");
  assert.equal(broadFolder("/work/me", { HOME: "/work/me" }), "a home folder", "the HOME the server runs with");
});

test("in a broad folder every write asks as an outside write, except in fullAccess", () => {
  for (const mode of ["ask", "autoEdit"] as const) {
    const judged = verdict({ mode, kind: "edit", input: write("/etc/kc-never-written"), workspace: "/etc" });
    assert.equal(judged.allow, false);
    assert.match(
      judged.reason ?? "",
      /^writes outside the workspace: \/etc\/kc-never-written; the thread's folder \/etc is a system folder, so no write counts as inside it$/,
    );
  }
  assert.equal(verdict({ mode: "fullAccess", kind: "edit", input: write("/etc/kc-never-written"), workspace: "/etc" }).allow, true);
  assert.equal(
    verdict({ mode: "autoEdit", kind: "shell", input: { command: "ls" }, workspace: "/" }).reason,
    undefined,
    "shells ask as before, without a write's reason",
  );
});
