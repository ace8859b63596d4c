// settings.json: every setting KnightCode itself reads, with its default and
// the words of docs/settings.md. Unknown keys in a file are kept untouched
// (extensions store their own), so the objects are open.
import { type Static, type TSchema, Type } from "typebox";
import { ApprovalMode, ThinkingLevel } from "./threads.js";

export { GLOBAL_ONLY_SETTINGS } from "./settings-scopes.js";

/**
 * Two annotations the generic words cannot give: `title` names a value's
 * type in the docs' table, `expected` says what it must be in a message
 * ("defaultTools must be <expected>, got ...").
 */
export interface Words {
  title?: string;
  expected?: string;
}

const text = (description: string, defaultValue: string) => Type.String({ minLength: 1, description, default: defaultValue });
const nullableText = (description: string) => Type.Union([Type.String({ minLength: 1 }), Type.Null()], { description, default: null });
const bool = (description: string, defaultValue: boolean) => Type.Boolean({ description, default: defaultValue });
/** A safe integer: beyond 2^53 a count stops being exact. */
const count = (description: string, defaultValue: number) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description, default: defaultValue });
const oneOf = <T extends TSchema[]>(choices: { anyOf: T }, description: string, defaultValue: string) =>
  Type.Union(choices.anyOf, { description, default: defaultValue });

/** `name`, `+name` or `-name`, where the name has no whitespace. */
const ToolPattern = Type.String({ pattern: "^[+-]?[^\\s+-]\\S*$" });
/** A path, or `+path` / `-path` to force a resource on or off; never a NUL. */
const PathPattern = Type.String({ pattern: "^[+-]?[^+\\-\\u0000][^\\u0000]*$" });
/** An environment variable's name, as a POSIX shell accepts it. */
export const EnvName = Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" });
/** Characters git refuses in branch names, plus whitespace; a prefix may be empty. */
const BranchPrefix = (description: string, defaultValue: string) =>
  Type.String({
    pattern: "^(?!-)(?!.*\\.\\.)(?!.*@\\{)[^\\s~^:?*\\[\\\\]*$",
    description,
    default: defaultValue,
    expected: "a string usable at the start of a git branch name",
  });

const toolPatterns = (description: string) =>
  Type.Array(ToolPattern, {
    description,
    default: [],
    title: "array of tool patterns",
    expected: 'an array of tool names, each optionally prefixed with "+" or "-"',
  });
const pathPatterns = (description: string) =>
  Type.Array(PathPattern, {
    description,
    default: [],
    title: "array of path patterns",
    expected: 'an array of paths, each optionally prefixed with "+" or "-"',
  });
const ENV_NAMES_WORDS = { title: "array of environment variable names", expected: "an array of environment variable names" } as const;
export const EnvNames = Type.Array(EnvName, ENV_NAMES_WORDS);

export const SANDBOX_MODES = ["workspace", "off"] as const;
const SandboxMode = Type.Union(SANDBOX_MODES.map((mode) => Type.Literal(mode)));

export const Settings = Type.Object({
  sessionDir: nullableText(
    "Folder for session files when neither `--session-dir` nor `KNIGHTCODE_CODING_AGENT_SESSION_DIR` is given. `null` keeps one folder per project under `<agentDir>/sessions/`. Only the global value counts: a project cannot move where sessions are kept.",
  ),
  defaultProvider: nullableText("Provider of the model a new thread starts with. `null` lets KnightCode pick the first usable model."),
  defaultModel: nullableText("Model id a new thread starts with, looked up in `defaultProvider`."),
  defaultThinkingLevel: oneOf(ThinkingLevel, "Reasoning effort of a new thread whose model can reason.", "medium"),
  defaultApprovalMode: oneOf(
    ApprovalMode,
    "Approval mode of a new thread: ask before edits and commands, accept file edits without asking, or run everything without asking.",
    "ask",
  ),
  theme: text("Name of the theme clients should use.", "dark"),
  retry: Type.Object({
    provider: Type.Object({
      enabled: bool("Retry a model request that failed with a passing error (overload, rate limit, dropped connection).", true),
      maxRetries: count("How many times one request is retried before the turn fails.", 3),
      baseDelayMs: count("Wait before the first retry, in milliseconds; each later retry waits twice as long as the one before.", 2000),
      maxRetryDelayMs: count("Longest single wait. When a provider asks to wait longer than this, the request fails rather than waiting.", 60000),
      streamIdleTimeoutMs: count("A model reply that sends nothing for this long is treated as a network failure and retried like one.", 300000),
    }),
  }),
  compaction: Type.Object({
    enabled: bool("Summarize older history automatically when the context window fills up.", true),
    reserveTokens: count("Tokens kept free in the context window for the model's reply; compaction starts when less than this remains.", 16384),
    keepRecentTokens: count("About how many tokens of the latest history compaction keeps word for word.", 20000),
  }),
  defaultTools: toolPatterns(
    'Tools a new thread registers. Plain names choose the set outright; `"+name"` adds a tool to it and `"-name"` removes one. With no plain name, the set starts from the built-in `read`, `bash`, `edit`, `write`.',
  ),
  extensions: pathPatterns("Extension files or folders to load, besides those found in the usual places."),
  extensionHookTimeoutMs: count(
    "How long one extension event handler may run, in milliseconds. A handler still running then is abandoned with a warning and the turn goes on; a `tool_call` handler's call is blocked (see [extensions](extensions.md#time-limits-and-failures)).",
    30000,
  ),
  skills: pathPatterns("Skill files or folders to load."),
  prompts: pathPatterns("Prompt template files or folders to load."),
  themes: pathPatterns("Theme files or folders to load."),
  worktrees: Type.Object({
    root: nullableText("Folder that holds managed worktrees. `null` means `<agentDir>/worktrees`."),
    keep: count("How many managed worktrees are kept; past that, the least recently used are deleted after a snapshot.", 15),
    branchPrefix: BranchPrefix("Start of the branch name a handoff creates when the worktree has no branch of its own.", "knightcode/"),
  }),
  interruptGraceMs: count(
    "After a turn is stopped (an interrupt, an unload, a fault), how long a tool or extension hook that ignores the stop may hold it. Then the turn ends without it, its call is saved as failed, and the next turn runs on a fresh agent. See [faults](faults.md).",
    5000,
  ),
  shellPath: nullableText("Shell the `bash` tool runs commands with. `null` lets the tool find bash itself."),
  sandbox: Type.Object({
    mode: Type.Union(SandboxMode.anyOf, {
      description:
        'How the commands a thread starts for the model run outside `fullAccess`: `"workspace"` in the OS sandbox (writes only in the thread\'s folder and a private temporary folder, the agent folder hidden, no network), `"off"` without it, under the approval rules alone. Global settings only: a project\'s value is ignored, with a warning. See [the sandbox](sandbox.md).',
      default: "workspace",
    }),
    network: bool(
      "Whether sandboxed commands may use the network. Without it, a command asks for the network (`bash` with `network: true`) through an approval. Global settings only.",
      false,
    ),
    required: bool(
      "When the sandbox cannot run on this machine: `false` runs sandboxed commands under the approval rules alone, with a warning when a thread loads; `true` refuses them. Global settings only.",
      false,
    ),
  }),
  requests: Type.Object({
    holdSeconds: Type.Integer({
      minimum: 0,
      maximum: 86400,
      title: "integer 0..86400",
      expected: "an integer from 0 to 86400",
      description:
        "How long, in seconds, a request (an approval, `ask_user`'s questions, a dialog, a plan review) stays pending when its last subscriber leaves and that client opted in with `holdRequests`; the thread's next subscriber is asked. Past it the request is cancelled as unattended. `0` cancels at once. Global settings only. See [the protocol](protocol.md#requests-that-wait-for-a-person).",
      default: 600,
    }),
  }),
  subagents: Type.Object({
    maxPerThread: Type.Integer({
      minimum: 0,
      maximum: 256,
      title: "integer 0..256",
      expected: "an integer from 0 to 256",
      description:
        "How many sub-agents one thread's model may start (`agent_start`) while the thread stays loaded; past it the call fails and says so. `0` leaves threads without sub-agents. See [sub-agents](subagents.md).",
      default: 16,
    }),
    maxRunning: Type.Integer({
      minimum: 1,
      maximum: 256,
      title: "integer 1..256",
      expected: "an integer from 1 to 256",
      description: "How many sub-agents may work at the same time in the whole server; a start past it fails and says so. Global settings only.",
      default: 8,
    }),
  }),
  terminals: Type.Object({
    maxPerThread: Type.Integer({
      minimum: 0,
      maximum: 64,
      title: "integer 0..64",
      expected: "an integer from 0 to 64",
      description:
        "How many commands a client runs with `command/exec` may run at the same time in one thread; past it `command/exec` is refused with `invalidParams`. `0` turns `command/exec` off. Global settings only. See [terminals](terminals.md).",
      default: 8,
    }),
    maxOutputBytes: Type.Integer({
      minimum: 1024,
      maximum: 1073741824,
      title: "integer 1024..1073741824",
      expected: "an integer from 1024 to 1073741824",
      description:
        "How many bytes of output (stdout and stderr together, or the terminal's) one `command/exec` process may send; at the cap its output is cut there, the process is stopped and `command/exec/exited` says `truncated: true`. Global settings only. See [terminals](terminals.md#output).",
      default: 16777216,
    }),
  }),
  shellEnv: Type.Object({
    passThrough: Type.Array(EnvName, {
      ...ENV_NAMES_WORDS,
      description:
        "Variables that programs a thread starts (`bash` commands, `rg` and `fd`, extensions' `exec`) receive although KnightCode withholds them: provider keys and the server's token (see [the environment of child processes](#the-environment-of-child-processes)). Only the global value counts.",
      default: [],
    }),
  }),
});

/** Every known setting with its value: what a read gives after defaults fill the gaps. */
export type Settings = Static<typeof Settings>;
