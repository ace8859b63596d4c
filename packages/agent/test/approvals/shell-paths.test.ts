import assert from "node:assert/strict";
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { secretPlaceReason, type SecretPlaces } from "../../src/approvals/secret-places.js";
import { physicalPath, type ShellFolder } from "../../src/approvals/shell-paths.js";
import { analyzeShellCommand, prefixCovers } from "../../src/approvals/shell-prefix.js";

/**
 * The folder-aware half of the prefix analysis: a command gets a prefix in
 * a folder only while every path it names, links followed, stays in it and
 * out of what is protected. Real files and links in a temporary tree.
 */

let root: string;
let folder: string;
let outside: string;
let places: SecretPlaces;
let inFolder: ShellFolder;

function file(path: string, content = "x\n"): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "kc-shell-paths-")));
  folder = join(root, "project");
  outside = join(root, "beyond");
  const agentDir = join(root, "agent");
  file(join(folder, "README.md"));
  file(join(folder, "src", "a.ts"));
  file(join(folder, ".git", "config"));
  file(join(folder, "list"));
  file(join(outside, "key.txt"));
  file(join(outside, "sub", "inner.txt"));
  file(join(agentDir, "auth.json"), '{"x":{"type":"api_key","key":"sk-1"}}');
  file(join(root, "token"));
  symlinkSync(join(outside, "key.txt"), join(folder, "secret-link"));
  symlinkSync(join(outside, "sub"), join(folder, "sub-link"));
  symlinkSync(agentDir, join(folder, "agent-link"));
  symlinkSync("/proc/self", join(folder, "proc-link"));
  symlinkSync("loop-b", join(folder, "loop-a"));
  symlinkSync("loop-a", join(folder, "loop-b"));
  symlinkSync("src", join(folder, "src-link"));
  linkSync(join(agentDir, "auth.json"), join(folder, "hard-auth.json"));
  places = { agentDir, secretFiles: [join(root, "token")] };
  inFolder = {
    cwd: folder,
    // A stand-in for the gate's control places: `.git/` for a write.
    protectedReason: (real, access) => secretPlaceReason(places, real) ?? (access === "write" && real.includes("/.git/") ? "a control place" : undefined),
  };
});
after(() => rmSync(root, { recursive: true, force: true }));

/** The prefix joined by spaces, or the refusal's reason after `refused: `. */
function judged(command: string): string {
  const analysis = analyzeShellCommand(command, "bash", inFolder);
  if (analysis.prefix !== undefined) return analysis.prefix.join(" ");
  assert.ok(analysis.reason.length > 0);
  return `refused: ${analysis.reason}`;
}

function assertRefused(command: string, why: RegExp): void {
  const analysis = analyzeShellCommand(command, "bash", inFolder);
  assert.equal(analysis.prefix, undefined, `${command} is refused`);
  assert.match(analysis.prefix === undefined ? analysis.reason : "", why, command);
  assert.equal(analysis.prefix === undefined && analysis.namesPath, true, `${command}: the refusal is about a path`);
}

describe("paths in the folder keep their prefix", () => {
  test("relative files, ./, links that stay inside, /dev/null, refs and patterns", () => {
    for (const [command, prefix] of [
      ["cat README.md", "cat"],
      ["cat ./src/a.ts src-link/a.ts", "cat"],
      [`cat ${folder}/README.md`, "cat"],
      ["cat /dev/null", "cat"],
      ["cat -- README.md", "cat"],
      ["grep -rn needle src", "grep"],
      ["grep -e needle -f list README.md", "grep"],
      ["git diff --no-index /dev/null README.md", "git diff"],
      ["git diff main..feature -- src", "git diff"],
      ["git log --format=%h,%s --since=2.weeks", "git log"],
      ["git show HEAD~2:src/a.ts", "git show"],
      ["git blame --contents README.md README.md", "git blame"],
      ["git commit -F list", "git commit"],
      ["git remote add upstream https://github.com/a/b.git", "git remote add"],
      ["git remote add upstream git@github.com:a/b.git", "git remote add"],
      ["kubectl get pods -o go-template-file=list", "kubectl get"],
      ["sort -t, -k2 README.md", "sort"],
      ["date +%Y-%m-%d", "date"],
      ["jq .a src/../README.md", "jq"],
      ["cat nothing-here/../README.md", "cat"],
    ] as const) {
      assert.equal(judged(command), prefix, command);
    }
  });

  test("a control place may be read, and not written, under a grant", () => {
    assert.equal(judged("cat .git/config"), "cat");
    assert.equal(judged("git diff .git/config"), "git diff");
    assertRefused("git mv README.md .git/hooks/pre-commit", /control place/);
    assertRefused("git checkout -- .git/config", /control place/);
  });

  test("without a folder the analysis is pure: paths are not looked at", () => {
    assert.deepEqual(analyzeShellCommand(`cat ${places.agentDir}/auth.json`).prefix, ["cat"]);
    assert.equal(prefixCovers(["cat"], "cat /etc/passwd"), true);
    assert.equal(prefixCovers(["cat"], "cat /etc/passwd", "bash", inFolder), false);
    assert.equal(prefixCovers(["cat"], "cat README.md", "bash", inFolder), true);
  });
});

describe("paths that leave the folder, or are protected, lose it", () => {
  test("absolute paths and `..` escapes", () => {
    assertRefused(`cat ${outside}/key.txt`, /outside the thread's folder/);
    assertRefused("cat ../beyond/key.txt", /outside the thread's folder/);
    assertRefused("cat src/../../beyond/key.txt", /outside the thread's folder/);
    assertRefused("cat -- ../beyond/key.txt", /outside/);
    assertRefused("ls /", /outside/);
    assertRefused("git diff --no-index /dev/null ../beyond/key.txt", /outside/);
    assertRefused(`git diff /dev/null ${outside}/key.txt`, /outside/);
  });

  test("links in the folder are followed where they point, `link/..` leaving from the target as the kernel does", () => {
    assertRefused("cat secret-link", /outside/);
    assertRefused("cat sub-link/inner.txt", /outside/);
    assertRefused("cat sub-link/../key.txt", /outside/);
    assert.equal(physicalPath(folder, "sub-link/../key.txt")?.path, join(outside, "key.txt"));
    assert.equal(physicalPath(folder, "src-link/../README.md")?.path, join(folder, "README.md"));
    assertRefused("cat loop-a", /symbolic links/);
  });

  test("the agent folder, a hard link to a credential file, the token file, and /proc however it is reached", () => {
    assertRefused(`cat ${places.agentDir}/auth.json`, /agent folder/);
    assertRefused("cat agent-link/auth.json", /agent folder/);
    assertRefused("head -c 100 hard-auth.json", /hard link/);
    assertRefused(`cat ${root}/token`, /secret/);
    assertRefused("cat /proc/self/environ", /\/proc/);
    assertRefused(`cat /proc/${process.pid}/environ`, /\/proc/);
    assertRefused("cat proc-link/environ", /\/proc/);
    assertRefused("cat /proc/self/root/etc/hostname", /\/proc/);
    assertRefused("cat /dev/stdin", /\/proc/);
  });

  test("every spelling of an option's value is a path: `--opt=v`, `--opt v`, `-fv`, a cluster, `key=v`, a comma list, a file: URL", () => {
    const secret = `${outside}/key.txt`;
    // Attached values are written relative: a letter of the temporary folder's name could be one the table refuses on its own.
    const up = "../beyond/key.txt";
    for (const command of [
      `grep --file=${secret} README.md`,
      `grep --file ${secret} README.md`,
      `grep -f${up} README.md`,
      `grep -inf${up} README.md`,
      `sort --random-source=${secret} README.md`,
      `kubectl get pods -o go-template-file=${secret}`,
      `kubectl get pods -ogo-template-file=${up}`,
      `kubectl get pods --output=jsonpath-file=${secret}`,
      `kubectl get -f list,${secret}`,
      `git commit -F ${secret}`,
      `git commit -F${up}`,
      `git commit --template=${secret}`,
      `git blame --contents ${secret} README.md`,
      `git fetch file://${outside}`,
      `git fetch file://localhost${outside}`,
      `jq -n --rawfile a ${secret} $a`.replace("$a", "'$a'"),
      "jq -L ../beyond -n 1",
      "realpath --relative-to=/ README.md",
      "npm run build --workspace=../beyond",
    ]) {
      assertRefused(command, /outside|\/proc/);
    }
  });

  test("a command naming too many path-like parts is refused rather than checked", () => {
    const words = Array.from({ length: 600 }, (_, i) => `f${i}`).join(" ");
    assertRefused(`cat ${words}`, /too many/);
  });
});
