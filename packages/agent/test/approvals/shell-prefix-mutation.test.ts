import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeShellCommand, prefixCovers } from "../../src/approvals/shell-prefix.js";
import { random } from "../tools/support.js";
import { BashOracle, checkWithBash } from "./bash-oracle.js";
import { CORPUS } from "./shell-corpus.js";

/** Operators, metacharacters and look-alikes to splice in, plus harmless text so some mutants still pass. */
const PIECES = [
  ";",
  "&&",
  "||",
  "|",
  "&",
  ">",
  ">>",
  "<",
  "2>&1",
  "&>",
  "<<EOF\nx\nEOF",
  "<<<x",
  "$(id)",
  "`id`",
  "<(id)",
  ">(id)",
  "$IFS",
  "${IFS}",
  "$x",
  "$'x'",
  "\\",
  "\\\n",
  "\n",
  "\r",
  "\0",
  "\t",
  "#",
  "'",
  '"',
  "*",
  "?",
  "[a]",
  "{a,b}",
  "~",
  "~/",
  "=~",
  "!",
  "(",
  ")",
  "{",
  "}",
  "=",
  "FOO=1 ",
  "env ",
  "sudo ",
  "time ",
  "exec ",
  "command ",
  "eval ",
  " -c x",
  " -C /tmp",
  "--output=x",
  "--upload-pack=x",
  " -exec",
  " --exec=x",
  " --config=x",
  "ext::x",
  "\u00a0",
  "\u200b",
  "\u0430",
  "\uff47",
  "\u202e",
  "\u3000",
  "\ufeff",
  "\u0085",
  "\u2028",
  " ",
  "  ",
  "-",
  "--",
  "a",
  "x",
  ".",
  ":",
  "/",
  "'q'",
  '"q q"',
  "' '",
  "HEAD~1",
  "@",
  "%",
  "+",
  ",",
  "^",
];

function mutate(command: string, next: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const at = Math.floor(next() * (command.length + 1));
  const piece = pick(PIECES);
  switch (Math.floor(next() * 3)) {
    case 0:
      return command.slice(0, at) + piece + command.slice(at);
    case 1:
      return command.slice(0, at) + piece + command.slice(at + 1);
    default:
      return command.slice(0, at) + piece + command.slice(at, at + 3) + pick(PIECES) + command.slice(at + 3);
  }
}

test("seeded mutations of covered commands: covered only when they still analyze to the same prefix, and bash agrees", (t) => {
  const oracle = new BashOracle();
  t.after(() => oracle.dispose());
  const next = random(0x5eed);
  const covered = CORPUS.filter(([command, expected]) => expected !== null && command.length < 200);
  let stillCovered = 0;
  let refused = 0;
  const problems: string[] = [];
  for (let round = 0; round < 4000; round++) {
    const [original, expected] = covered[Math.floor(next() * covered.length)]!;
    const granted = expected!.split(" ");
    let mutant = mutate(original, next);
    if (next() < 0.3) mutant = mutate(mutant, next);
    const analysis = analyzeShellCommand(mutant);
    const same = analysis.prefix !== undefined && analysis.prefix.join("\u0000") === granted.join("\u0000");
    if (prefixCovers(granted, mutant) !== same) problems.push(`${JSON.stringify(mutant)}: covers disagrees with the analysis`);
    if (analysis.prefix === undefined) {
      refused++;
      continue;
    }
    if (same) stillCovered++;
    const problem = checkWithBash(oracle, mutant);
    if (problem !== undefined) problems.push(problem);
  }
  assert.deepEqual(problems, []);
  // The seed must exercise both outcomes, or the test proves nothing.
  assert.ok(refused > 2000, `only ${refused} mutants refused`);
  assert.ok(stillCovered > 100, `only ${stillCovered} mutants still covered`);
  t.diagnostic(`${refused} refused, ${stillCovered} still covered, ${4000 - refused - stillCovered} with another prefix`);
});

/** Words to assemble commands from: programs, subcommands, options and metacharacters. */
const WORDS = [
  "git",
  "status",
  "log",
  "stash",
  "list",
  "npm",
  "run",
  "build",
  "test",
  "npx",
  "tsc",
  "jest",
  "make",
  "find",
  "-exec",
  "--output=x",
  "-c",
  "-C",
  "--",
  "-",
  "'a b'",
  '"c d"',
  "''",
  "x",
  "src/a.ts",
  "HEAD~2",
  ";",
  "&&",
  "|",
  "&",
  ">",
  "<",
  "$(id)",
  "`id`",
  "$x",
  "*",
  "~",
  "#",
  "\\",
  "\n",
  "(",
  ")",
  "{",
  "}",
  "FOO=1",
  "env",
  "sudo",
  "bash",
  "-e",
  "ext::x",
  "\u00a0",
  "\u0430",
];

test("seeded random word salad: every command that gets a prefix is one that bash runs as analyzed", (t) => {
  const oracle = new BashOracle();
  t.after(() => oracle.dispose());
  const next = random(20240611);
  const problems: string[] = [];
  let accepted = 0;
  for (let round = 0; round < 6000; round++) {
    const count = 1 + Math.floor(next() * 5);
    const words = Array.from({ length: count }, () => WORDS[Math.floor(next() * WORDS.length)]!);
    const glue = () => (next() < 0.85 ? " " : next() < 0.5 ? "" : "\t");
    const command = words.reduce((text, word, i) => (i === 0 ? word : text + glue() + word), "");
    if (analyzeShellCommand(command).prefix === undefined) continue;
    accepted++;
    const problem = checkWithBash(oracle, command);
    if (problem !== undefined) problems.push(problem);
  }
  assert.deepEqual(problems, []);
  assert.ok(accepted > 50, `only ${accepted} generated commands got a prefix`);
  t.diagnostic(`${accepted} of 6000 generated commands got a prefix`);
});
