import { signal, type ReadonlySignal } from "@preact/signals";
import type { ToolCallItem, Turn } from "@knightcode/app-server-protocol";
import type { TranscriptConnection, TranscriptDeps } from "./model.js";

/**
 * What the page last heard of each sub-agent: the parent's subscription
 * brings a sub-agent's notifications (with its own threadId and
 * `parentThreadId`), and the parent's card shows its latest words and its
 * state from them. Kept apart from the transcripts: a sub-agent's items
 * are its own thread's, never its parent's.
 */
export interface SubagentLive {
  threadId: string;
  parentThreadId: string;
  /** The parent's call that started it. */
  parentCallId?: string;
  name?: string;
  /** `starting` until its first turn starts; then the state of its latest turn. */
  status: "starting" | Turn["status"];
  /** Its latest reply as far as it streamed. */
  text: string;
}

export const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(["agent_start", "agent_send", "agent_wait", "agent_close"]);

export interface SubagentActivity {
  /** By the sub-agent's thread id. */
  readonly live: ReadonlySignal<ReadonlyMap<string, SubagentLive>>;
  watch(): () => void;
}

type Parented = { threadId: string; parentThreadId?: string };

export function createSubagentActivity(conn: () => TranscriptConnection, frame: TranscriptDeps["frame"]): SubagentActivity {
  const live = signal<ReadonlyMap<string, SubagentLive>>(new Map());
  /** Deltas wait for the next frame, as the transcript's do: a fast stream costs one redraw a frame. */
  const pending = new Map<string, string>();
  let frameHandle = 0;

  /** A known sub-agent, or one a notification names as one; undefined for any other thread. */
  function entry({ threadId, parentThreadId }: Parented): SubagentLive | undefined {
    const known = live.value.get(threadId);
    if (known || !parentThreadId) return known;
    return { threadId, parentThreadId, status: "starting", text: "" };
  }

  function put(next: SubagentLive): void {
    const map = new Map(live.value);
    map.set(next.threadId, next);
    live.value = map;
  }

  function flush(): void {
    if (frameHandle) frame.cancel(frameHandle);
    frameHandle = 0;
    if (pending.size === 0) return;
    const map = new Map(live.value);
    for (const [threadId, more] of pending) {
      const known = map.get(threadId);
      if (known) map.set(threadId, { ...known, text: known.text + more });
    }
    pending.clear();
    live.value = map;
  }

  function watch(): () => void {
    const c = conn();
    const stops = [
      c.on("thread/started", ({ thread }) => {
        if (!thread.parentThreadId) return;
        const known = live.value.get(thread.id);
        put({
          ...(known ?? { threadId: thread.id, status: "starting", text: "" }),
          parentThreadId: thread.parentThreadId,
          ...(thread.parentCallId ? { parentCallId: thread.parentCallId } : {}),
          ...(thread.name ? { name: thread.name } : {}),
        });
      }),
      c.on("turn/started", (params) => {
        const known = entry(params);
        flush();
        if (known) put({ ...known, status: params.turn.status, text: "" });
      }),
      c.on("turn/completed", (params) => {
        const known = entry(params);
        flush();
        if (known) put({ ...known, status: params.turn.status });
      }),
      c.on("item/started", (params) => {
        const known = entry(params);
        // A new reply replaces the words of the one before it.
        if (known && params.item.type === "agentMessage") {
          flush();
          put({ ...known, text: "text" in params.item ? params.item.text : "" });
        }
      }),
      c.on("item/completed", (params) => {
        const known = entry(params);
        if (known && params.item.type === "agentMessage" && "text" in params.item && params.item.text) {
          pending.delete(params.threadId);
          put({ ...known, text: params.item.text });
        }
      }),
      c.on("item/agentMessage/delta", (params) => {
        if (!entry(params)) return;
        if (!live.value.has(params.threadId)) put(entry(params)!);
        pending.set(params.threadId, (pending.get(params.threadId) ?? "") + params.delta);
        if (!frameHandle) frameHandle = frame.request(flush);
      }),
    ];
    return () => {
      for (const stop of stops) stop();
      if (frameHandle) frame.cancel(frameHandle);
      frameHandle = 0;
      pending.clear();
    };
  }

  return { live, watch };
}

/** The input's string fields a sub-agent tool names its sub-agents by: ids or names. */
function namedIn(input: unknown): string[] | undefined {
  if (!input || typeof input !== "object") return undefined;
  const fields = input as { agent?: unknown; agents?: unknown };
  if (typeof fields.agent === "string") return [fields.agent];
  if (Array.isArray(fields.agents)) return fields.agents.filter((a): a is string => typeof a === "string");
  return undefined;
}

/** One sub-agent a card shows: its id when known, the name it goes by, and where it stands. */
export interface SubagentCardEntry {
  threadId?: string;
  name?: string;
  status: string;
  text?: string;
}

/**
 * The sub-agents a call of a sub-agent tool is about. Once it completed, the
 * item names them with the state they ended the call in; while it runs, a
 * start is the sub-agent whose `parentCallId` is the call, a send or close
 * is the one its input names, and a wait is those it names or else every
 * one of the parent's that still works.
 */
export function subagentsOfCall(parentThreadId: string, item: ToolCallItem, live: ReadonlyMap<string, SubagentLive>): SubagentCardEntry[] {
  const children = [...live.values()].filter((child) => child.parentThreadId === parentThreadId);
  const inputName = (item.input as { name?: unknown } | undefined)?.name;
  if (item.subagents) {
    return item.subagents.map((ref) => ({
      threadId: ref.threadId,
      name: ref.name ?? live.get(ref.threadId)?.name,
      status: ref.status,
      text: live.get(ref.threadId)?.text,
    }));
  }
  let found: SubagentLive[];
  if (item.name === "agent_start") found = children.filter((child) => child.parentCallId === item.id);
  else {
    const named = namedIn(item.input);
    found = named
      ? children.filter((child) => named.includes(child.threadId) || (child.name !== undefined && named.includes(child.name)))
      : children.filter((child) => child.status === "inProgress");
  }
  if (found.length === 0) {
    const name = typeof inputName === "string" ? inputName : namedIn(item.input)?.join(", ");
    return [{ ...(name ? { name } : {}), status: item.status === "inProgress" ? "starting" : item.status }];
  }
  return found.map((child) => ({
    threadId: child.threadId,
    name: child.name ?? (typeof inputName === "string" ? inputName : undefined),
    status: item.status === "inProgress" ? (child.status === "inProgress" ? "working" : child.status) : item.status,
    text: child.text,
  }));
}
