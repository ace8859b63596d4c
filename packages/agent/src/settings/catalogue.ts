import { bool, branchPrefix, count, envNames, type Kind, nullable, oneOf, pathPatterns, text, toolPatterns } from "./kinds.js";

/** One known setting: what it accepts, what unset means, and a line for the docs. */
export class SettingLeaf<T> {
  constructor(
    readonly kind: Kind<T>,
    readonly defaultValue: T,
    readonly description: string,
    /** Only the global settings may set it: a project's value is ignored, with a warning. */
    readonly globalOnly = false,
  ) {}
}

function leaf<T>(kind: Kind<T>, defaultValue: NoInfer<T>, description: string): SettingLeaf<T> {
  return new SettingLeaf(kind, defaultValue, description);
}

/** A setting a repository must not be able to change for the user: what contains its own commands. */
function globalLeaf<T>(kind: Kind<T>, defaultValue: NoInfer<T>, description: string): SettingLeaf<T> {
  return new SettingLeaf(kind, defaultValue, description, true);
}

export const SANDBOX_MODES = ["workspace", "off"] as const;

export interface SettingGroup {
  readonly [key: string]: SettingLeaf<unknown> | SettingGroup;
}

/** The typed shape of a catalogue group: every leaf replaced by its value type. */
export type SettingValues<G> = {
  -readonly [K in keyof G]: G[K] extends SettingLeaf<infer T> ? T : SettingValues<G[K]>;
};

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

export const APPROVAL_MODES = ["ask", "autoEdit", "fullAccess"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/**
 * Every setting KnightCode itself reads. Unknown keys in a file are kept
 * untouched (extensions store their own); only these are type-checked.
 */
export const SETTINGS_CATALOGUE = {
  sessionDir: leaf(nullable(text), null, "Folder for session files when neither --session-dir nor KNIGHTCODE_CODING_AGENT_SESSION_DIR is given; null keeps one folder per project under <agentDir>/sessions."),
  defaultProvider: leaf(nullable(text), null, "Provider of the model a new thread starts with; null lets KnightCode pick the first usable one."),
  defaultModel: leaf(nullable(text), null, "Model id a new thread starts with, looked up in defaultProvider; null lets KnightCode pick."),
  defaultThinkingLevel: leaf(oneOf(THINKING_LEVELS), "medium", "Reasoning effort of a new thread whose model can reason."),
  defaultApprovalMode: leaf(oneOf(APPROVAL_MODES), "ask", "Approval mode of a new thread: ask before edits and commands, accept edits, or run everything."),
  theme: leaf(text, "dark", "Name of the theme clients should use."),
  retry: {
    provider: {
      enabled: leaf(bool, true, "Retry a model request that failed with a transient error (overload, rate limit, network)."),
      maxRetries: leaf(count, 3, "How many times one request is retried before the turn fails."),
      baseDelayMs: leaf(count, 2000, "Wait before the first retry; each later retry doubles it."),
      maxRetryDelayMs: leaf(count, 60000, "Upper bound of one wait; when a provider asks to wait longer, the request fails instead of waiting."),
      streamIdleTimeoutMs: leaf(count, 300000, "A model reply that sends nothing for this long is treated as a network failure (and retried)."),
    },
  },
  compaction: {
    enabled: leaf(bool, true, "Summarize older history automatically when the context window fills up."),
    reserveTokens: leaf(count, 16384, "Tokens kept free in the context window for the model's reply; compaction starts when less remains."),
    keepRecentTokens: leaf(count, 20000, "Roughly how many tokens of the most recent history compaction keeps verbatim."),
  },
  defaultTools: leaf(toolPatterns, [], 'Tools a new thread registers: plain names choose the set, "+name" adds and "-name" removes one; with no plain name the set starts from read, bash, edit, write.'),
  extensions: leaf(pathPatterns, [], 'Extension files or folders to load; "+path" forces one on and "-path" skips one found elsewhere.'),
  extensionHookTimeoutMs: leaf(count, 30000, "How long one extension event handler may run; past it the handler is abandoned (a tool_call check blocks its call) and the turn goes on."),
  skills: leaf(pathPatterns, [], 'Skill files or folders to load, with the same "+" and "-" patterns.'),
  prompts: leaf(pathPatterns, [], 'Prompt template files or folders to load, with the same "+" and "-" patterns.'),
  themes: leaf(pathPatterns, [], 'Theme files or folders to load, with the same "+" and "-" patterns.'),
  worktrees: {
    root: leaf(nullable(text), null, "Folder holding managed worktrees; null means <agentDir>/worktrees."),
    keep: leaf(count, 15, "How many managed worktrees are kept; past that, the least recently used are deleted after a snapshot."),
    branchPrefix: leaf(branchPrefix, "knightcode/", "Prefix of the branch a handoff creates when the worktree has none of its own."),
  },
  interruptGraceMs: leaf(count, 5000, "After a turn is stopped, how long a tool or extension hook that ignores the stop may hold it; then the turn ends without waiting for it."),
  shellPath: leaf(nullable(text), null, "Shell the bash tool runs commands with; null lets the tool find bash itself."),
  sandbox: {
    mode: globalLeaf(oneOf(SANDBOX_MODES), "workspace", 'How the commands a thread starts for the model run outside fullAccess: "workspace" in the OS sandbox (writes only in the thread\'s folder and a private temporary folder, the agent folder hidden, no network), "off" without it. Global settings only.'),
    network: globalLeaf(bool, false, "Whether sandboxed commands may use the network; without it a command asks for the network through an approval. Global settings only."),
    required: globalLeaf(bool, false, "Refuse sandboxed commands when the sandbox cannot run on this machine, instead of running them under the approval rules alone (with a warning). Global settings only."),
  },
  shellEnv: {
    passThrough: leaf(envNames, [], "Environment variables that programs a thread starts (bash, rg, fd, extensions' exec) receive although they hold a provider key or the server's token; only the global settings count."),
  },
} as const satisfies SettingGroup;

export type EffectiveSettings = SettingValues<typeof SETTINGS_CATALOGUE>;

export interface CatalogueEntry {
  /** Dotted key, such as `retry.provider.maxRetries`. */
  key: string;
  segments: readonly string[];
  leaf: SettingLeaf<unknown>;
}

function collect(group: SettingGroup, prefix: readonly string[], out: CatalogueEntry[]): CatalogueEntry[] {
  for (const [name, node] of Object.entries(group)) {
    const segments = [...prefix, name];
    if (node instanceof SettingLeaf) out.push({ key: segments.join("."), segments, leaf: node });
    else collect(node, segments, out);
  }
  return out;
}

/** Every known leaf in catalogue order. */
export const CATALOGUE_ENTRIES: readonly CatalogueEntry[] = collect(SETTINGS_CATALOGUE, [], []);

/** What each unset setting means, in the shape of the settings; a fresh copy each call. */
export function settingsDefaults(): EffectiveSettings {
  const out: Record<string, unknown> = {};
  for (const { segments, leaf } of CATALOGUE_ENTRIES) {
    let node = out;
    for (const segment of segments.slice(0, -1)) node = (node[segment] ??= {}) as Record<string, unknown>;
    node[segments.at(-1)!] = structuredClone(leaf.defaultValue);
  }
  return out as EffectiveSettings;
}

/** The catalogue node at a key: a leaf, a group, or nothing known. `below` names a leaf the key descends into. */
export function catalogueNode(segments: readonly string[]): { node?: SettingLeaf<unknown> | SettingGroup; below?: string } {
  let node: SettingLeaf<unknown> | SettingGroup = SETTINGS_CATALOGUE;
  for (let i = 0; i < segments.length; i++) {
    if (node instanceof SettingLeaf) return { below: segments.slice(0, i).join(".") };
    if (!Object.hasOwn(node, segments[i]!)) return {};
    node = node[segments[i]!]!;
  }
  return { node };
}
