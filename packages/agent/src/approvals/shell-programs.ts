import { allOf, networkRemotesOnly, noJqFileAccess, noRemoteHelper, staysInFolder, type WordCheck } from "./shell-checks.js";
import { allow, type ArgRule, deny, denySingleDash, NO_OPTION_LIMITS } from "./shell-options.js";
import { ESLINT, JEST, PRETTIER, PYTEST, TSC, VITEST } from "./shell-dev-tools.js";
import { anyArgs, bareArgs, type CommandNode, leaf } from "./shell-nodes.js";

export type { CommandNode };

// git: options that run a program (upload-pack, exec, open-files-in-pager,
// strategy), write a file anywhere (output), use an external diff tool, or
// read the paths to work on from a file nobody sees (pathspec-from-file).
const GIT_DENIED = ["exec", "upload-pack", "receive-pack", "output", "ext-diff", "open-files-in-pager", "strategy", "pathspec-from-file"];

interface GitRule {
  /** Long options refused for this subcommand alone. */
  readonly long?: readonly string[];
  readonly check?: WordCheck;
  readonly readsOnly?: boolean;
}

const gitArgs = (short = "", positionals = true, rule: GitRule = {}): ArgRule => ({
  positionals,
  options: deny([...GIT_DENIED, ...(rule.long ?? [])], short),
  check: rule.check === undefined ? noRemoteHelper : allOf(noRemoteHelper, rule.check),
  ...(rule.readsOnly ? { readsOnly: true } : {}),
});
const git = (short = "", rule: GitRule = {}): CommandNode => leaf(gitArgs(short, true, rule));
/** Subcommands that only read the paths they name (`git diff .git/config` asks nothing of what runs later). */
const gitReads = (short = ""): CommandNode => git(short, { readsOnly: true });

const GIT: CommandNode = {
  subcommands: {
    status: gitReads(),
    diff: gitReads(),
    log: gitReads(),
    show: gitReads(),
    branch: git(),
    tag: git(),
    fetch: git(),
    pull: git("s"),
    add: git(),
    commit: git(),
    checkout: git(),
    switch: git(),
    restore: git(),
    mv: git(),
    // -i and --edit-todo open the sequence editor: a program of the configuration's choosing.
    rebase: git("xsi", { long: ["interactive", "edit-todo"] }),
    merge: git("s"),
    "rev-parse": gitReads(),
    "ls-files": gitReads(),
    blame: gitReads(),
    grep: gitReads("O"),
    describe: gitReads(),
    shortlog: gitReads(),
    stash: {
      args: gitArgs("", false),
      subcommands: { list: git(), show: git(), push: git(), pop: git(), apply: git(), drop: git() },
    },
    remote: {
      args: gitArgs("", false),
      subcommands: {
        show: gitReads(),
        "get-url": gitReads(),
        add: git("", { check: networkRemotesOnly }),
        "set-url": git("", { check: networkRemotesOnly }),
        prune: git(),
      },
    },
  },
};

// npm, pnpm and yarn read their configuration from options anywhere on the
// line (script-shell, prefix, node-options, userconfig...), so only a short
// list of options is recognized. A script takes no further words: they would
// reach whatever tool the script runs (`npm test -- --config=x.js` reaches jest).
const PACKAGE_MANAGER_OPTIONS = allow(
  [
    "--silent",
    "-s",
    "--if-present",
    "--workspaces",
    "--ws",
    "--include-workspace-root",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    "--ignore-scripts",
    "--legacy-peer-deps",
    "--json",
    "--long",
    "--all",
    "--frozen-lockfile",
    "--immutable",
    "--recursive",
    "-r",
    "--omit=dev",
    "--include=dev",
  ],
  [/^--(workspace|filter)=[A-Za-z0-9@._/-]+$/],
);
const scriptArgs = bareArgs(PACKAGE_MANAGER_OPTIONS);
const installArgs = bareArgs(PACKAGE_MANAGER_OPTIONS);
const runScript: CommandNode = { args: installArgs, named: leaf(scriptArgs) };

const NPM: CommandNode = {
  subcommands: {
    run: runScript,
    "run-script": runScript,
    test: leaf(scriptArgs),
    start: leaf(scriptArgs),
    install: leaf(installArgs),
    i: leaf(installArgs),
    ci: leaf(installArgs),
    ls: leaf(anyArgs(PACKAGE_MANAGER_OPTIONS)),
    outdated: leaf(anyArgs(PACKAGE_MANAGER_OPTIONS)),
    audit: leaf(installArgs),
  },
};

const PNPM: CommandNode = {
  subcommands: {
    run: runScript,
    test: leaf(scriptArgs),
    install: leaf(installArgs),
    i: leaf(installArgs),
    ls: leaf(anyArgs(PACKAGE_MANAGER_OPTIONS)),
    outdated: leaf(anyArgs(PACKAGE_MANAGER_OPTIONS)),
    audit: leaf(installArgs),
  },
};

const YARN: CommandNode = {
  args: installArgs,
  subcommands: { install: leaf(installArgs), run: runScript, test: leaf(scriptArgs) },
};

// cargo: --config can set a runner or linker, -Z unstable flags, -C and
// --manifest-path point at another project. Words after `--` go to rustc,
// clippy or a test binary, whose options we do not check.
// --target-dir and --artifact-dir/--out-dir write (and `cargo clean` deletes) wherever they say.
const CARGO_ARGS = anyArgs(deny(["config", "manifest-path", "lockfile-path"], "ZC", true, ["target-dir", "artifact-dir", "out-dir"]), {
  check: (words) => (words.some((word) => word.text === "--") ? "words after `--` go to another program" : undefined),
});
const CARGO: CommandNode = {
  subcommands: Object.fromEntries(
    ["build", "check", "test", "clippy", "fmt", "doc", "bench", "tree", "metadata", "clean"].map((sub) => [sub, leaf(CARGO_ARGS)]),
  ),
};

// go: flags that name a program to run (exec, toolexec, vettool, the linker
// through ldflags), swap the source files (overlay, modfile, C), hand words
// to the test binary (args, any -test.* flag), or write a file anywhere (o,
// the profiles, trace, outputdir, pkgdir). Packages outside the working
// folder are code nobody here looked at.
const GO_ARGS = anyArgs(
  denySingleDash(
    [
      "exec",
      "toolexec",
      "vettool",
      "overlay",
      "modfile",
      "C",
      "ldflags",
      "gcflags",
      "asmflags",
      "gccgoflags",
      "compiler",
      "args",
      "o",
      "pkgdir",
      "coverprofile",
      "cpuprofile",
      "memprofile",
      "blockprofile",
      "mutexprofile",
      "trace",
      "outputdir",
    ],
    { prefixes: ["test."] },
  ),
  { check: staysInFolder },
);
const GO: CommandNode = {
  subcommands: {
    build: leaf(GO_ARGS),
    test: leaf(GO_ARGS),
    vet: leaf(GO_ARGS),
    fmt: leaf(GO_ARGS),
    list: leaf(GO_ARGS),
    version: leaf(GO_ARGS),
    mod: { subcommands: Object.fromEntries(["tidy", "download", "verify", "graph", "why"].map((sub) => [sub, leaf(GO_ARGS)])) },
  },
};

// make: one target at most (a second would run too), no VAR=value (it can
// replace SHELL or CC), no -f/-C/--eval.
const MAKE_ARGS = bareArgs(allow(["-k", "-s", "--silent", "--keep-going"], [/^-j[0-9]+$/]));
const MAKE: CommandNode = { args: MAKE_ARGS, named: leaf(MAKE_ARGS) };

// docker and kubectl: only reading subcommands, and no option that picks
// another daemon, cluster, credential or config (kubeconfig exec plugins run commands).
const DOCKER_ARGS = anyArgs(deny(["config", "context", "host", "tls", "tlscacert", "tlscert", "tlskey", "tlsverify"], "Hc"), { readsOnly: true });
const DOCKER: CommandNode = {
  subcommands: {
    ...Object.fromEntries(["ps", "images", "logs", "inspect", "version", "info"].map((sub) => [sub, leaf(DOCKER_ARGS)])),
    compose: { subcommands: { ps: leaf(DOCKER_ARGS), logs: leaf(DOCKER_ARGS), ls: leaf(DOCKER_ARGS) } },
  },
};
const KUBECTL_ARGS = anyArgs(
  deny(
    [
      "kubeconfig",
      "as",
      "as-group",
      "as-uid",
      "token",
      "server",
      "user",
      "username",
      "password",
      "cluster",
      "context",
      "certificate-authority",
      "client-certificate",
      "client-key",
      "insecure-skip-tls-verify",
      // Files written wherever they say: klog's logs, the discovery cache, profiles.
      "log-file",
      "log-dir",
      "cache-dir",
      "profile",
      "profile-output",
    ],
    "s",
  ),
  { readsOnly: true },
);
const KUBECTL: CommandNode = {
  subcommands: Object.fromEntries(["get", "describe", "logs", "explain", "version", "api-resources", "top"].map((sub) => [sub, leaf(KUBECTL_ARGS)])),
};

// gh: --web (-w) opens a browser, another program, on whatever the command names.
const GH_ARGS = anyArgs(deny(["web"], "w"), { readsOnly: true });
const readingPair = (...subs: string[]): CommandNode => ({ subcommands: Object.fromEntries(subs.map((sub) => [sub, leaf(GH_ARGS)])) });
const GH: CommandNode = {
  subcommands: {
    pr: readingPair("list", "view", "status", "diff", "checks"),
    issue: readingPair("list", "view", "status"),
    repo: readingPair("view"),
    run: readingPair("list", "view"),
    release: readingPair("list", "view"),
    workflow: readingPair("list", "view"),
  },
};

/** Programs npx may run with a prefix: node tools whose own rules are in this table. */
const NPX_TOOLS = ["tsc", "jest", "vitest", "eslint", "prettier"];

/** Programs that only read what they name, with any option. */
const reader = leaf(anyArgs(NO_OPTION_LIMITS, { readsOnly: true }));
/** A reader refused some options: those that write, run something, or read a list of further names from a file nobody sees. */
const readerWithout = (options: ArgRule["options"], more: Partial<ArgRule> = {}): CommandNode => leaf(anyArgs(options, { readsOnly: true, ...more }));

/** Every recognized program. A program missing here gets no prefix. */
export const PROGRAMS: Readonly<Record<string, CommandNode>> = {
  git: GIT,
  npm: NPM,
  pnpm: PNPM,
  yarn: YARN,
  npx: { delegate: NPX_TOOLS },
  cargo: CARGO,
  go: GO,
  make: MAKE,
  tsc: TSC,
  jest: JEST,
  vitest: VITEST,
  eslint: ESLINT,
  prettier: PRETTIER,
  pytest: PYTEST,
  docker: DOCKER,
  kubectl: KUBECTL,
  gh: GH,
  ls: reader,
  cat: reader,
  head: reader,
  tail: reader,
  wc: readerWithout(deny(["files0-from"])),
  // -R and --dereference-recursive follow every link met on the way, out of the folder too.
  grep: readerWithout(deny(["dereference-recursive"], "R")),
  du: readerWithout(deny(["files0-from"])),
  df: reader,
  stat: reader,
  // -r follows links met on the way, and with -N prints what it finds there whole.
  diff: readerWithout(deny(["recursive"], "r")),
  which: reader,
  basename: reader,
  dirname: reader,
  realpath: reader,
  uname: reader,
  whoami: reader,
  // -f reads the program from a file, where an import would be out of sight.
  jq: readerWithout(deny(["from-file"], "f"), { check: noJqFileAccess }),
  rg: readerWithout(deny(["pre", "hostname-bin", "follow"], "L")),
  find: readerWithout(denySingleDash(["exec", "execdir", "ok", "okdir", "delete", "fprint", "fprint0", "fprintf", "fls", "files0-from"])),
  sort: readerWithout(deny(["output", "compress-program", "temporary-directory", "files0-from"], "oT")),
  tree: readerWithout(deny(["fromfile", "fromtabfile"], "oR")),
  file: readerWithout(deny(["compile", "files-from"], "Cf")),
  date: readerWithout(deny(["set", "file"], "sf")),
};

/** The own entry of `table` named `name`: never an inherited property such as `constructor`. */
export function entry(table: Readonly<Record<string, CommandNode>> | undefined, name: string): CommandNode | undefined {
  return table !== undefined && Object.hasOwn(table, name) ? table[name] : undefined;
}

export function recognizedPrograms(): string[] {
  return Object.keys(PROGRAMS);
}
