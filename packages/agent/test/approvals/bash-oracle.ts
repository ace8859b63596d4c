import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { analyzeShellCommand, prefixFromWords } from "../../src/approvals/shell-prefix.js";
import { recognizedPrograms } from "../../src/approvals/shell-programs.js";
import { splitShellWords } from "../../src/approvals/shell-words.js";

/**
 * Runs commands with the real bash, in an empty directory whose PATH holds
 * only stubs named like the recognized programs. A stub prints the argv it
 * received, so a test sees what bash really ran: which programs, how often,
 * with which words. Nothing else on the machine is reachable by name.
 */
export class BashOracle {
  readonly #root = realpathSync(mkdtempSync(join(tmpdir(), "kc-shell-oracle-")));
  readonly #bin = join(this.#root, "bin");
  readonly #cwd = join(this.#root, "work");
  readonly #bash = findBash();

  constructor() {
    mkdirSync(this.#bin);
    mkdirSync(this.#cwd);
    for (const name of recognizedPrograms()) {
      const stub = join(this.#bin, name);
      writeFileSync(stub, '#!/bin/sh\nprintf "%s\\0" "${0##*/}" "$@"\nprintf "\\001"\n');
      chmodSync(stub, 0o755);
    }
  }

  /** Every program invocation bash made for `command`, each as its argv, plus bash's exit status and stderr. */
  run(command: string): { calls: string[][]; status: number | null; stderr: string } {
    const result = spawnSync(this.#bash, ["-c", command], {
      cwd: this.#cwd,
      env: { PATH: this.#bin, HOME: this.#root, LANG: "C.UTF-8" },
      encoding: "utf8",
      timeout: 20_000,
    });
    const records = result.stdout.split("\u0001");
    const calls = records.slice(0, -1).map((record) => record.split("\0").slice(0, -1));
    if (records.at(-1) !== "") calls.push(["<unterminated output>", records.at(-1)!]);
    return { calls, status: result.status, stderr: result.stderr };
  }

  dispose(): void {
    rmSync(this.#root, { recursive: true, force: true });
  }
}

function findBash(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, "bash");
    if (dir !== "" && existsSync(candidate)) return candidate;
  }
  throw new Error("bash is needed on PATH to check the analyzer against the real shell");
}

/**
 * For a command that gets a prefix, bash must run exactly one program, once,
 * with exactly the words we split, and those words (as bash passed them,
 * quoting gone) must give the same prefix. Returns what went wrong, if anything.
 */
export function checkWithBash(oracle: BashOracle, command: string): string | undefined {
  const analysis = analyzeShellCommand(command);
  if (analysis.prefix === undefined) return undefined;
  const words = splitShellWords(command).words!.map((word) => word.text);
  const ran = oracle.run(command);
  const label = JSON.stringify(command.length > 100 ? `${command.slice(0, 97)}...` : command);
  if (ran.calls.length !== 1) return `${label}: bash ran ${ran.calls.length} programs (${ran.stderr.trim()})`;
  if (ran.status !== 0 || ran.stderr !== "") return `${label}: bash status ${ran.status}, stderr ${ran.stderr.trim()}`;
  const argv = ran.calls[0]!;
  if (JSON.stringify(argv) !== JSON.stringify(words)) return `${label}: bash passed ${JSON.stringify(argv)}, we split ${JSON.stringify(words)}`;
  const fromArgv = prefixFromWords(argv.map((text) => ({ text, quoted: false })));
  if (JSON.stringify(fromArgv.prefix) !== JSON.stringify(analysis.prefix)) {
    return `${label}: bash's argv gives ${JSON.stringify(fromArgv.prefix)}, the command ${JSON.stringify(analysis.prefix)}`;
  }
  return undefined;
}
