import type { SessionEntry, WorkspaceState } from "./format.js";

/** Cumulative token figures of a branch: every reply's, plus the summaries compaction paid for. */
export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
  /** What the context held after the latest reply; absent after a compaction until the next one. */
  contextTokens?: number;
}

/**
 * What a branch leaves behind, the latest setting of each kind winning.
 * Every turn_end entry carries it as `state`, so a thread loads from its
 * newest turn instead of from its whole history.
 */
export interface BranchSummary {
  model?: { provider: string; id: string };
  thinkingLevel?: string;
  approvalMode?: string;
  /** Present once plan mode was ever set on the branch. */
  planMode?: boolean;
  name?: string;
  /** The start of the first user message's text, for a default name. */
  firstUserText?: string;
  /** Where the thread runs, once a workspace entry said so; absent: in its header's folder. */
  workspace?: WorkspaceState;
  usage: UsageTotals;
  /** The latest usage each sub-agent reported through this thread's sub-agent tools, by its thread id. */
  subagents?: Record<string, UsageTotals>;
}

/** Sub-agents a summary keeps the usage of: far more than `subagents.maxPerThread` allows. */
const MAX_SUBAGENTS = 1024;

/** A checkpoint keeps this much of the first message: far more than any title shows. */
export const FIRST_TEXT_MAX = 1000;

export function emptySummary(): BranchSummary {
  return { usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 } };
}

const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

/**
 * Adds one reply's usage (pi-ai's shape, read defensively) to `totals` in
 * place; with `contextKnown`, what the reply says the context held becomes
 * `contextTokens` (a reply without usage leaves it as it was).
 */
export function addUsage(totals: UsageTotals, usage: unknown, contextKnown: boolean): void {
  if (usage === null || typeof usage !== "object") return;
  const u = usage as Record<string, unknown>;
  const cost = u.cost as Record<string, unknown> | undefined;
  totals.input += num(u.input);
  totals.output += num(u.output);
  totals.cacheRead += num(u.cacheRead);
  totals.cacheWrite += num(u.cacheWrite);
  totals.cost += num(cost?.total);
  if (!contextKnown) return;
  const context = num(u.input) + num(u.cacheRead) + num(u.cacheWrite) + num(u.output);
  if (context > 0) totals.contextTokens = context;
}

function userText(message: Record<string, unknown>): string {
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const part = content.find((c) => (c as { type?: unknown })?.type === "text") as { text?: unknown } | undefined;
  return typeof part?.text === "string" ? part.text : "";
}

/** Folds one entry of the branch into `summary` (in place). */
export function foldEntry(summary: BranchSummary, base: SessionEntry): void {
  const entry = base as unknown as Record<string, unknown>;
  switch (entry.type) {
    case "model_change":
      summary.model = { provider: String(entry.provider), id: String(entry.modelId) };
      return;
    case "thinking_level_change":
      summary.thinkingLevel = String(entry.thinkingLevel);
      return;
    case "approval_mode":
      summary.approvalMode = String(entry.mode);
      return;
    case "plan_mode":
      summary.planMode = entry.on === true;
      return;
    case "thread_name":
      summary.name = String(entry.name);
      return;
    case "workspace": {
      const workspace = workspaceOf(entry);
      if (workspace) summary.workspace = workspace;
      return;
    }
    case "compaction":
      if (entry.usage) {
        addUsage(summary.usage, entry.usage, false);
        delete summary.usage.contextTokens;
      }
      return;
    case "message": {
      const message = (entry.message ?? {}) as Record<string, unknown>;
      if (message.role === "assistant") addUsage(summary.usage, message.usage, true);
      else if (message.role === "user" && summary.firstUserText === undefined) summary.firstUserText = userText(message).slice(0, FIRST_TEXT_MAX);
      else if (message.role === "toolResult") foldSubagents(summary, (message.details as { subagents?: unknown } | undefined)?.subagents);
      return;
    }
  }
}

/** Usage as the wire writes it (cost a number) as totals; undefined when it is not usage. */
function usageTotals(value: unknown): UsageTotals | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const usage = value as Record<string, unknown>;
  const totals: UsageTotals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  addUsage(totals, { ...usage, cost: { total: usage.cost } }, false);
  return totals;
}

/** A sub-agent tool's report: each sub-agent's usage as it stood, replacing what an earlier report said. */
function foldSubagents(summary: BranchSummary, reports: unknown): void {
  if (!Array.isArray(reports)) return;
  for (const report of reports as Array<Record<string, unknown> | null>) {
    const threadId = report?.threadId;
    const usage = usageTotals(report?.usage);
    if (typeof threadId !== "string" || threadId === "" || threadId.length > 256 || !usage) continue;
    summary.subagents ??= {};
    if (!(threadId in summary.subagents) && Object.keys(summary.subagents).length >= MAX_SUBAGENTS) continue;
    summary.subagents[threadId] = usage;
  }
}

export function summaryOf(entries: readonly SessionEntry[], start: BranchSummary = emptySummary()): BranchSummary {
  const summary = cloneSummary(start);
  for (const entry of entries) foldEntry(summary, entry);
  return summary;
}

export function cloneSummary(summary: BranchSummary): BranchSummary {
  return {
    ...summary,
    ...(summary.model ? { model: { ...summary.model } } : {}),
    ...(summary.workspace ? { workspace: { ...summary.workspace } } : {}),
    usage: { ...summary.usage },
    ...(summary.subagents ? { subagents: Object.fromEntries(Object.entries(summary.subagents).map(([id, usage]) => [id, { ...usage }])) } : {}),
  };
}

/** A workspace entry's (or a checkpoint's) fields as a WorkspaceState, when they are well formed. */
export function workspaceOf(value: Record<string, unknown>): WorkspaceState | undefined {
  const { mode, cwd } = value;
  if ((mode !== "local" && mode !== "worktree") || typeof cwd !== "string" || cwd === "") return undefined;
  const state: WorkspaceState = { mode, cwd };
  for (const key of ["path", "baseRef", "branch"] as const) {
    if (typeof value[key] === "string") state[key] = value[key] as string;
  }
  return state;
}

/** A turn_end's checkpoint, when it carries a well-formed one. */
export function checkpointOf(entry: SessionEntry): BranchSummary | undefined {
  if (entry.type !== "turn_end") return undefined;
  const state = (entry as unknown as { state?: unknown }).state;
  if (state === null || typeof state !== "object") return undefined;
  const value = state as Record<string, unknown>;
  const totals = usageTotals(value.usage);
  if (!totals) return undefined;
  const summary: BranchSummary = { usage: totals };
  const contextTokens = (value.usage as { contextTokens?: unknown }).contextTokens;
  if (typeof contextTokens === "number") summary.usage.contextTokens = contextTokens;
  const model = value.model as Record<string, unknown> | undefined;
  if (model && typeof model.provider === "string" && typeof model.id === "string") summary.model = { provider: model.provider, id: model.id };
  for (const key of ["thinkingLevel", "approvalMode", "name", "firstUserText"] as const) {
    if (typeof value[key] === "string") summary[key] = value[key] as string;
  }
  if (typeof value.planMode === "boolean") summary.planMode = value.planMode;
  const workspace = value.workspace !== null && typeof value.workspace === "object" ? workspaceOf(value.workspace as Record<string, unknown>) : undefined;
  if (workspace) summary.workspace = workspace;
  if (value.subagents !== null && typeof value.subagents === "object") {
    foldSubagents(
      summary,
      Object.entries(value.subagents as Record<string, unknown>).map(([threadId, usage]) => ({ threadId, usage })),
    );
  }
  return summary;
}
