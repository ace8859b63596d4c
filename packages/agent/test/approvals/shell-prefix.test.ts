import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeShellCommand, formatPrefix, prefixCovers } from "../../src/approvals/shell-prefix.js";
import { CORPUS, POWERSHELL_CORPUS } from "./shell-corpus.js";

const expectedOf = (expected: string | null): string[] | undefined => (expected === null ? undefined : expected.split(" "));
const show = (command: string): string => JSON.stringify(command.length > 80 ? `${command.slice(0, 77)}...` : command);

test("the corpus has at least 300 rows, none repeated", () => {
  assert.ok(CORPUS.length >= 300, `only ${CORPUS.length} rows`);
  const commands = new Set(CORPUS.map(([command]) => command));
  assert.equal(commands.size, CORPUS.length, "a command appears twice");
});

test("every corpus row yields exactly its expected prefix, or none with a reason", () => {
  const wrong: string[] = [];
  for (const [command, expected] of CORPUS) {
    const analysis = analyzeShellCommand(command);
    const got = analysis.prefix === undefined ? null : analysis.prefix.join(" ");
    if (got !== expected) wrong.push(`${show(command)}: expected ${expected}, got ${got} (${analysis.prefix ? "" : analysis.reason})`);
    if (analysis.prefix === undefined) assert.ok(analysis.reason.length > 0, `${show(command)} has no reason`);
  }
  assert.deepEqual(wrong, []);
});

test("spec example: a git status grant covers git status --short, not git reset or look-alikes", () => {
  const granted = ["git", "status"];
  assert.equal(prefixCovers(granted, "git status --short"), true);
  assert.equal(prefixCovers(granted, "git status"), true);
  for (const command of [
    "git reset",
    "git status; rm -rf x",
    "git 'status'",
    "git \\status",
    '"git" status',
    "git -c core.pager=evil status",
    "git statusx",
    "git status && git reset --hard",
  ]) {
    assert.equal(prefixCovers(granted, command), false, command);
  }
});

test("a grant covers only the exact prefix: not a longer one, not a shorter one", () => {
  assert.equal(prefixCovers(["git", "stash"], "git stash list"), false);
  assert.equal(prefixCovers(["git", "stash", "list"], "git stash"), false);
  assert.equal(prefixCovers(["npm", "run"], "npm run build"), false);
  assert.equal(prefixCovers(["npm", "run", "build"], "npm run build:prod"), false);
  assert.equal(prefixCovers(["make"], "make build"), false);
  assert.equal(prefixCovers(["npx", "tsc"], "tsc"), false);
  assert.equal(prefixCovers(["tsc"], "npx tsc"), false);
  assert.equal(prefixCovers([], "git status"), false);
  assert.equal(prefixCovers(["git"], "git status"), false);
});

test("grants are per shell: PowerShell commands are never analyzed", () => {
  for (const command of POWERSHELL_CORPUS) {
    const analysis = analyzeShellCommand(command, "powershell");
    assert.equal(analysis.prefix, undefined, command);
    assert.match(analysis.prefix === undefined ? analysis.reason : "", /PowerShell/);
  }
  assert.equal(prefixCovers(["git", "status"], "git status", "powershell"), false);
  assert.equal(prefixCovers(["git", "status"], "git status", "bash"), true);
  assert.equal(analyzeShellCommand("git status", "fish" as "bash").prefix, undefined);
});

test("bad inputs are refused, never thrown", () => {
  assert.equal(analyzeShellCommand(undefined as unknown as string).prefix, undefined);
  assert.equal(analyzeShellCommand(42 as unknown as string).prefix, undefined);
  assert.equal(prefixCovers("git status" as unknown as string[], "git status"), false);
  assert.equal(prefixCovers(["git", "status"], null as unknown as string), false);
});

test("reasons name what made the command fail closed", () => {
  const reasonOf = (command: string): string => {
    const analysis = analyzeShellCommand(command);
    assert.equal(analysis.prefix, undefined, command);
    return analysis.prefix === undefined ? analysis.reason : "";
  };
  assert.match(reasonOf("git status; rm x"), /`;`/);
  assert.match(reasonOf("git status | sh"), /`\|`/);
  assert.match(reasonOf("git status $(id)"), /`\$`/);
  assert.match(reasonOf("FOO=1 git status"), /assignment/);
  assert.match(reasonOf("sudo git status"), /`sudo` runs or changes another command/);
  assert.match(reasonOf("python3 -c 'x'"), /interpreter/);
  assert.match(reasonOf("git -C /tmp status"), /options before the subcommand/);
  assert.match(reasonOf("git log --output=x"), /`--output=x` is refused after `git log`/);
  assert.match(reasonOf("npm run build --script-shell=x"), /only a short list of options/);
  assert.match(reasonOf("git\u00a0status"), /U\+00A0/);
  assert.match(reasonOf("/usr/bin/git status"), /by path/);
  assert.match(reasonOf("frobnicate"), /not a recognized program/);
  assert.match(reasonOf("git commit -m 'x"), /unterminated quote/);
  assert.match(reasonOf("x".repeat(9000)), /longer than 8192/);
  assert.match(reasonOf("tsc --OUTDIR x a.ts"), /`--OUTDIR` is refused after `tsc`/);
  assert.match(reasonOf("tsc @args.txt"), /`@args.txt` names a file of further arguments/);
  assert.match(reasonOf("pytest ../other"), /`..\/other` leaves the working folder/);
  assert.match(reasonOf("go test -test.coverprofile=x"), /refused after `go test`/);
});

test("the returned prefix is a fresh array: changing it changes nothing later", () => {
  const first = analyzeShellCommand("git status");
  assert.ok(first.prefix);
  first.prefix.push("--evil");
  first.prefix[1] = "reset";
  assert.deepEqual(analyzeShellCommand("git status").prefix, ["git", "status"]);
  const npx = analyzeShellCommand("npx jest");
  npx.prefix?.pop();
  assert.deepEqual(analyzeShellCommand("npx jest").prefix, ["npx", "jest"]);
});

test("formatPrefix joins plain words and quotes anything else", () => {
  assert.equal(formatPrefix(["git", "status"]), "git status");
  assert.equal(formatPrefix(["npm", "run", "build:prod"]), "npm run build:prod");
  assert.equal(formatPrefix(["a b", "it's"]), "'a b' 'it'\\''s'");
  assert.equal(formatPrefix([]), "");
});

test("pairs: a grant from any row covers another row only when both expected prefixes are equal", () => {
  const grants = CORPUS.map(([, expected]) => expectedOf(expected)).filter((prefix) => prefix !== undefined);
  let checked = 0;
  const violations: string[] = [];
  for (const granted of grants) {
    for (const [command, expected] of CORPUS) {
      const covered = prefixCovers(granted, command);
      const same = expected !== null && expected === granted.join(" ");
      if (covered !== same) violations.push(`${granted.join(" ")} vs ${show(command)}: covered=${covered}`);
      checked++;
    }
  }
  assert.ok(checked > 40_000, `only ${checked} pairs`);
  assert.deepEqual(violations, []);
});
