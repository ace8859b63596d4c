import type { Agent } from "@mariozechner/pi-agent-core";
import type { ToolResultMessage } from "@mariozechner/pi-ai";

/** Resolves "abandoned" once `stop` has been aborted for `graceMs`; never, if one of `cancels` aborts first. */
export function graceAfterStop(stop: AbortSignal, graceMs: number, cancels: AbortSignal[]): Promise<"abandoned"> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const onStop = () => {
      timer = setTimeout(() => resolve("abandoned"), graceMs);
    };
    const cancel = () => {
      clearTimeout(timer);
      stop.removeEventListener("abort", onStop);
      for (const signal of cancels) signal.removeEventListener("abort", cancel);
    };
    if (cancels.some((signal) => signal.aborted)) return;
    for (const signal of cancels) signal.addEventListener("abort", cancel, { once: true });
    if (stop.aborted) onStop();
    else stop.addEventListener("abort", onStop, { once: true });
  });
}

/** Failed results for the calls a left-behind agent still runs: the transcript keeps a result for every call. */
export function leftBehindResults(agent: Agent, graceMs: number): ToolResultMessage[] {
  const last = [...agent.state.messages].reverse().find((m) => m.role === "assistant");
  const names = new Map(last?.role === "assistant" ? last.content.flatMap((c) => (c.type === "toolCall" ? [[c.id, c.name] as const] : [])) : []);
  return [...agent.state.pendingToolCalls].map((toolCallId) => ({
    role: "toolResult",
    toolCallId,
    toolName: names.get(toolCallId) ?? "unknown",
    content: [{ type: "text", text: `The tool did not stop within ${graceMs} ms of the turn being stopped; the turn ended without its result.` }],
    isError: true,
    timestamp: Date.now(),
  }));
}
