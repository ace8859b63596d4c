import { allOf, noResponseFile, staysInFolder } from "./shell-checks.js";
import { type CommandNode, anyArgs, leaf } from "./shell-nodes.js";
import { allow, deny, denySingleDash } from "./shell-options.js";

/*
 * The programs a project runs to test, lint and type-check its code. They
 * load configuration and plugins as code, from options such as --config,
 * --plugin or --reporter: only a few options pass.
 */
export const JEST = leaf(
  anyArgs(
    allow([
      "--ci",
      "--coverage",
      "--runInBand",
      "-i",
      "--verbose",
      "--silent",
      "--bail",
      "--passWithNoTests",
      "-u",
      "--updateSnapshot",
      "--detectOpenHandles",
      "--forceExit",
      "--listTests",
      "-t",
      "--testNamePattern",
      "--json",
      "--no-cache",
      "--onlyChanged",
      "-o",
      "--watchAll=false",
    ]),
  ),
);
const VITEST_ARGS = anyArgs(
  allow(["--run", "--coverage", "--silent", "--passWithNoTests", "-u", "--update", "-t", "--testNamePattern", "--reporter=verbose", "--reporter=dot"]),
);
export const VITEST: CommandNode = {
  args: VITEST_ARGS,
  reserved: ["watch", "dev", "init", "typecheck"],
  subcommands: Object.fromEntries(["run", "bench", "list", "related"].map((sub) => [sub, leaf(VITEST_ARGS)])),
};
export const ESLINT = leaf(
  anyArgs(
    allow(
      [
        "--fix",
        "--fix-dry-run",
        "--cache",
        "--quiet",
        "--max-warnings",
        "--no-error-on-unmatched-pattern",
        "--report-unused-disable-directives",
        "--color",
        "--no-color",
        "--format=json",
        "--format=stylish",
      ],
      [/^--max-warnings=[0-9]+$/],
    ),
    { check: staysInFolder },
  ),
);
export const PRETTIER = leaf(anyArgs(allow(["--write", "-w", "--check", "-c", "--list-different", "-l", "--cache", "--no-color"]), { check: staysInFolder }));
// pytest: -p loads a plugin module, --pdbcls imports one, -c/-o/--config-file
// and @file add options from another file; --basetemp is emptied first, and
// the reports and logs are written wherever they say.
export const PYTEST = leaf(
  anyArgs(
    deny(
      [
        "config-file",
        "inifile",
        "override-ini",
        "rootdir",
        "confcutdir",
        "pyargs",
        "pdbcls",
        "basetemp",
        "junitxml",
        "junit-xml",
        "log-file",
        "debug",
        "report-log",
        "resultlog",
        "result-log",
        "html",
        "cov-report",
      ],
      "pco",
    ),
    { check: allOf(noResponseFile, staysInFolder) },
  ),
);

// tsc: options that write elsewhere (outDir, outFile, declarationDir, the
// build info, traces and profiles; rootDir shapes the output tree) or read
// another project (-p, -b). tsc reads option names in any case and with one
// dash or two, and arguments from `@file`; it writes each input's output
// beside it, so inputs stay in the working folder.
export const TSC = leaf(
  anyArgs(
    denySingleDash(
      ["outdir", "outfile", "out", "declarationdir", "tsbuildinfofile", "generatetrace", "generatecpuprofile", "rootdir", "project", "p", "build", "b"],
      { ignoreCase: true },
    ),
    { check: allOf(noResponseFile, staysInFolder) },
  ),
);
