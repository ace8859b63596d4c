import type { TokenUsage } from "@knightcode/agent/run/usage";
import type { UsageTotals } from "@knightcode/store/session/summary";

type Sum = NonNullable<TokenUsage["subagents"]>;

const add = (into: Sum, usage: UsageTotals | Sum): void => {
  into.input += usage.input;
  into.output += usage.output;
  into.cacheRead += usage.cacheRead;
  into.cacheWrite += usage.cacheWrite;
  into.cost += usage.cost;
};

/**
 * A parent's usage as the wire shows it: its own figures unchanged, and
 * once it has sub-agents, theirs summed (`subagents`) and everything summed
 * (`total`). Each sub-agent counts once, at its latest figure: what this
 * process follows live, else what the parent's transcript last reported.
 */
export function withSubagentUsage(
  own: TokenUsage,
  reported: Record<string, UsageTotals> | undefined,
  live: ReadonlyMap<string, TokenUsage> | undefined,
): TokenUsage {
  const ids = new Set([...Object.keys(reported ?? {}), ...(live?.keys() ?? [])]);
  if (ids.size === 0) return own;
  const subagents: Sum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  for (const id of ids) {
    const latest = live?.get(id) ?? reported?.[id];
    if (latest) add(subagents, latest);
  }
  const total: Sum = { input: own.input, output: own.output, cacheRead: own.cacheRead, cacheWrite: own.cacheWrite, cost: own.cost };
  add(total, subagents);
  const { subagents: _stale, total: _staleTotal, ...plain } = own;
  return { ...plain, subagents, total };
}
