import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { collectOutput } from "@knightcode/system/process/collect";
import { launch } from "@knightcode/system/process/launch";
import { GitAuthError, ToolMissingError } from "../errors.js";
import { currentBranch, firstLine, type GitContext } from "./context.js";
import { CommandRefusedError, GitRequestError } from "./errors.js";
import { isAuthFailure } from "./push.js";

export interface PullRequestOptions {
  title?: string;
  body?: string;
  draft?: boolean;
  base?: string;
  /** How long each gh command may take. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_OUTPUT = 1024 * 1024;
const GH_AUTH_FAILURES = [/not logged in/i, /gh auth login/i, /HTTP 401/i, /Bad credentials/i];

/** The executable `name` in the PATH of `env`, or undefined. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function runTool(file: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number, signal?: AbortSignal): Promise<Ran> {
  const run = launch({ file, args, cwd, env, ...(signal ? { signal } : {}), timeoutMs, killGraceMs: 0 });
  const { code, stdout, stderr } = await collectOutput(run, { maxStdout: MAX_OUTPUT, maxStderr: MAX_OUTPUT });
  return { code, stdout: stdout.toString("utf8"), stderr: stderr.toString("utf8") };
}

/**
 * Opens a pull request for the current branch with `gh pr create`, its
 * arguments an array: `--head=<branch>`, the title and body given (`--fill`
 * from the commits when there is no title), `--draft`, `--base`. gh
 * missing from PATH is a ToolMissingError, gh not signed in a
 * GitAuthError. The URL is the last line gh prints.
 */
export async function createPullRequest(ctx: GitContext, options: PullRequestOptions = {}): Promise<{ url: string }> {
  const env: NodeJS.ProcessEnv = {
    ...(ctx.env ?? process.env),
    GH_PROMPT_DISABLED: "1",
    GH_NO_UPDATE_NOTIFIER: "1",
    GH_SPINNER_DISABLED: "1",
    NO_COLOR: "1",
    GIT_TERMINAL_PROMPT: "0",
  };
  const gh = findOnPath("gh", env);
  if (gh === undefined) throw new ToolMissingError("gh", "gh (the GitHub CLI) is not on PATH: install it and sign in with `gh auth login`");
  const branch = await currentBranch(ctx);
  if (branch === null) throw new GitRequestError("HEAD is detached: create a branch here and push it first");
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const run = (args: string[]) => runTool(gh, args, ctx.repo.root, env, timeoutMs, ctx.signal);
  const auth = await run(["auth", "status"]);
  if (auth.code !== 0) throw new GitAuthError(`gh is not signed in: run \`gh auth login\` (${firstLine(auth.stderr || auth.stdout)})`);
  // Values joined to their flags: a title starting with "-" stays a title.
  const args = ["pr", "create", `--head=${branch}`];
  if (options.title !== undefined) args.push(`--title=${options.title}`, `--body=${options.body ?? ""}`);
  else args.push("--fill", ...(options.body !== undefined ? [`--body=${options.body}`] : []));
  if (options.draft) args.push("--draft");
  if (options.base !== undefined) args.push(`--base=${options.base}`);
  const created = await run(args);
  const output = `${created.stdout}${created.stderr}`.trim();
  if (created.code !== 0) {
    if (isAuthFailure(created.stderr) || GH_AUTH_FAILURES.some((pattern) => pattern.test(created.stderr)))
      throw new GitAuthError(`gh could not sign in: ${firstLine(created.stderr)}`);
    throw new CommandRefusedError(`gh pr create failed: ${firstLine(created.stderr || created.stdout)}`, output);
  }
  const url = created.stdout
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .at(-1);
  if (url === undefined || !/^https?:\/\//.test(url)) throw new CommandRefusedError("gh pr create printed no URL", output);
  return { url };
}
