/**
 * Programs whose arguments are themselves a program: a grant for their name
 * would grant anything. They would fail closed anyway as unrecognized
 * programs; naming them gives the user (and a script name check) a clear reason.
 */
const INTERPRETERS = [
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "fish",
  "csh",
  "tcsh",
  "pwsh",
  "powershell",
  "busybox",
  "node",
  "nodejs",
  "bun",
  "deno",
  "ts-node",
  "tsx",
  "perl",
  "ruby",
  "irb",
  "php",
  "lua",
  "luajit",
  "Rscript",
  "R",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "sed",
  "osascript",
  "tclsh",
  "wish",
  "expect",
  "java",
  "jshell",
  "groovy",
  "scala",
  "erl",
  "elixir",
  "iex",
  "julia",
  "guile",
  "racket",
  "ghci",
  "runghc",
  "vi",
  "vim",
  "nvim",
  "emacs",
  "gdb",
  "lldb",
];

const WRAPPERS = [
  "env",
  "sudo",
  "doas",
  "su",
  "runuser",
  "pkexec",
  "xargs",
  "parallel",
  "timeout",
  "nice",
  "ionice",
  "nohup",
  "time",
  "exec",
  "command",
  "builtin",
  "eval",
  "source",
  ".",
  "stdbuf",
  "setsid",
  "chroot",
  "unshare",
  "nsenter",
  "flock",
  "watch",
  "strace",
  "ltrace",
  "valgrind",
  "taskset",
  "chrt",
  "script",
  "firejail",
  "ssh",
  "trap",
  "alias",
  "function",
  "coproc",
];

const DISPATCHERS = ["bunx", "uvx", "uv", "pipx", "poetry", "pipenv", "conda", "bundle", "rake", "just", "task", "dotnet"];

const KEYWORDS = ["if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "select", "in"];

const PYTHON = /^(python|pypy|pip)[0-9.]*$/;

/** True for names that run code given to them: yarn runs a dependency's binary when no script has the name. */
export function runsOtherCode(name: string): boolean {
  return INTERPRETERS.includes(name) || PYTHON.test(name) || WRAPPERS.includes(name);
}

/** Why `name` can never start a granted prefix, or undefined when it is not one of these. */
export function refusalFor(name: string): string | undefined {
  if (INTERPRETERS.includes(name) || PYTHON.test(name)) {
    return `\`${name}\` is an interpreter: what it runs is in its arguments or in a file`;
  }
  if (WRAPPERS.includes(name)) return `\`${name}\` runs or changes another command`;
  if (DISPATCHERS.includes(name)) return `\`${name}\` dispatches to scripts or packages`;
  if (KEYWORDS.includes(name)) return `\`${name}\` is a shell keyword`;
  return undefined;
}
