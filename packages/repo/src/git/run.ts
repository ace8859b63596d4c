import { collectOutput } from "@knightcode/system/process/collect";
import { launch, type Launched } from "@knightcode/system/process/launch";
import { GitCommandError } from "./errors.js";

/** What one git command may print before it is stopped: diffs of huge changes are cut by their readers, not here. */
const DEFAULT_MAX_OUTPUT = 256 * 1024 * 1024;

/** Variables of the caller's environment that would point git at another repository, index or config. */
const REDIRECTING = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_CEILING_DIRECTORIES",
  "GIT_PREFIX",
  "GIT_EXTERNAL_DIFF",
  "GIT_DIFF_OPTS",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
];

export interface GitOptions {
  /** The folder git runs in. */
  cwd: string;
  /** The server's environment; the process's by default. Redirecting variables are removed from it. */
  env?: NodeJS.ProcessEnv;
  /** Extra variables, set after the removals (an index copy, an author). */
  extraEnv?: Record<string, string>;
  /** Written to the command's stdin. */
  input?: string | Buffer;
  signal?: AbortSignal;
  /** Exit codes that are answers, not failures (`git diff --quiet` answers 1). 0 always is. */
  okCodes?: readonly number[];
  /** Stops the command past this many bytes of stdout (an error); 256 MiB by default. */
  maxOutput?: number;
  /** Takes stdout as it arrives instead of collecting it (the result's stdout is then empty): a reader that works while git writes. */
  onStdout?: (chunk: Buffer) => void;
  /**
   * Reads must not write: no optional lock, no index refresh written back
   * (`GIT_OPTIONAL_LOCKS=0`). True by default; commands that change the
   * repository pass false.
   */
  readOnly?: boolean;
  /**
   * Configuration given on the command line (`-c key=value`) before the
   * subcommand: outranks every config file.
   */
  config?: readonly (readonly [string, string])[];
}

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs `git <args>` with an argument array, never a shell, in the
 * repository around `cwd`: guarded (no fsmonitor, no pager, no implicit
 * bare repository), with no prompt for credentials, messages in English,
 * and none of the caller's variables that would point it elsewhere. A
 * failure (an exit code outside `okCodes`, a signal, no git) throws
 * GitCommandError with what git said.
 */
export function runGit(args: readonly string[], options: GitOptions): Promise<GitResult> {
  const env = gitEnv(options);
  const config = (options.config ?? []).flatMap(([key, value]) => ["-c", `${key}=${value}`]);
  const argv = [...config, ...args];
  const maxOutput = options.maxOutput ?? DEFAULT_MAX_OUTPUT;
  if (options.signal?.aborted) return Promise.reject(new GitCommandError(args, null, "the command was cancelled"));
  let run: Launched;
  try {
    run = launch({ file: "git", args: argv, cwd: options.cwd, env, stdin: "pipe", ...(options.signal ? { signal: options.signal } : {}), killGraceMs: 0 });
  } catch (error) {
    return Promise.reject(new GitCommandError(args, null, (error as Error).message));
  }
  run.stdin?.end(options.input ?? "");
  // What git says on failure is short; a flood of warnings keeps its head.
  return collectOutput(run, {
    maxStdout: maxOutput,
    maxStderr: 64 * 1024,
    stopPastCap: true,
    ...(options.onStdout ? { onStdout: options.onStdout } : {}),
  }).then(
    ({ code, signal, stdout, stderr: errBytes, truncated }) => {
      const stderr = errBytes.toString("utf8");
      if (truncated.stdout) throw new GitCommandError(args, code, `git printed more than ${maxOutput} bytes`);
      if (signal !== null || code === null)
        throw new GitCommandError(args, null, options.signal?.aborted ? "the command was cancelled" : `git was stopped by ${signal}`);
      if (code !== 0 && !(options.okCodes ?? []).includes(code)) throw new GitCommandError(args, code, stderr.trim());
      return { code, stdout, stderr };
    },
    (error: NodeJS.ErrnoException) => {
      throw new GitCommandError(args, null, error.code === "ENOENT" ? "git is not installed (no git on PATH)" : error.message, error.code === "ENOENT");
    },
  );
}

/** `runGit`'s stdout as UTF-8 text. */
export async function gitText(args: readonly string[], options: GitOptions): Promise<string> {
  return (await runGit(args, options)).stdout.toString("utf8");
}

function gitEnv(options: GitOptions): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  for (const name of REDIRECTING) delete base[name];
  // git's guards are added by launch, as for every child.
  const env = base;
  env.GIT_TERMINAL_PROMPT = "0";
  env.GCM_INTERACTIVE = "never";
  env.LC_ALL = "C";
  env.LANGUAGE = "C";
  if (options.readOnly !== false) env.GIT_OPTIONAL_LOCKS = "0";
  Object.assign(env, options.extraEnv ?? {});
  return env;
}

/**
 * Command-line configuration under which git runs no code the repository
 * or the user chose: no hooks, and every filter driver the configuration
 * names (LFS's, a clean/smudge pair, a long-running process) switched off,
 * since an empty driver command means no filtering. Worktree creation and
 * restore run under it; commits do not (the user's hooks run there).
 */
export async function noUserCodeConfig(cwd: string, env?: NodeJS.ProcessEnv): Promise<[string, string][]> {
  const config: [string, string][] = [["core.hooksPath", "/dev/null"]];
  const listed = await runGit(["config", "--null", "--name-only", "--get-regexp", "^filter\\."], { cwd, env, okCodes: [1] });
  const drivers = new Set<string>();
  for (const name of listed.stdout.toString("utf8").split("\0")) {
    const match = /^filter\.(.+)\.(clean|smudge|process|required)$/s.exec(name);
    if (match) drivers.add(match[1]!);
  }
  for (const driver of drivers) {
    config.push([`filter.${driver}.clean`, ""], [`filter.${driver}.smudge`, ""], [`filter.${driver}.process`, ""], [`filter.${driver}.required`, "false"]);
  }
  return config;
}
