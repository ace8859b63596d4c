import type { AssistantMessage } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { SessionEvent } from "@knightcode/agent/run/events";
import type { Item, ItemOf } from "@knightcode/app-server-protocol";
import { REPORT_FINDING } from "@knightcode/agent/tools/report-finding";
import { extensionItem, ordinalId, toolCallOutcome, userItem } from "./item-shapes.js";
import { findingItem, findingOfCall } from "./finding-item.js";

/** Where a turn's item notifications go. */
export interface ItemSink {
  started(item: Item): void;
  completed(item: Item): void;
  removed(itemId: string): void;
  agentDelta(itemId: string, delta: string): void;
  reasoningDelta(itemId: string, delta: string): void;
}

interface StreamingPart {
  item: ItemOf<"reasoning" | "agentMessage">;
}

/**
 * Turns one running turn's session events into items, numbering them the
 * same way history does (see history/turns.ts): non-tool items take the next
 * ordinal, every top-level item the next index, in the order they start.
 * Keeps the items so far for a live snapshot of the turn.
 */
export class LiveTurnItems {
  private ordinal = 0;
  private index = 0;
  private readonly items = new Map<string, Item>();
  /** Top-level item ids in the order they started, which is index order. */
  private readonly order: string[] = [];
  /** Nested call ids by the id of the call that made them, in the order they started. */
  private readonly nested = new Map<string, string[]>();
  private reasoning: StreamingPart | undefined;
  private answer: StreamingPart | undefined;
  /** When the assistant message that asked for tools was saved: their start time. */
  private callsStartedAt = 0;
  private firstUser = true;
  /** report_finding calls that started, by call id: their items wait for the result. */
  private readonly deferred = new Map<string, { index: number; startedAt: number; name: string; input: unknown }>();

  constructor(
    readonly turnId: string,
    private readonly sink: ItemSink,
    private readonly clientMessageId?: string,
    /** Whether the user declined a call at the approval gate. */
    private readonly isDeclined: (callId: string) => boolean = () => false,
  ) {}

  /**
   * Items so far, in index order, each nested call right after the call
   * that made it: the running turn's live snapshot. Top-level items take
   * their index as they start, so `order` is already index order and a
   * snapshot is one pass, however long the turn.
   */
  snapshot(): Item[] {
    const ordered: Item[] = [];
    for (const id of this.order) {
      const item = this.items.get(id);
      if (item === undefined) continue;
      ordered.push(item);
      for (const nestedId of this.nested.get(id) ?? []) {
        const call = this.items.get(nestedId);
        if (call !== undefined) ordered.push(call);
      }
    }
    return ordered;
  }

  handle(event: SessionEvent): void {
    switch (event.type) {
      case "message_start":
        if (event.message.role === "assistant") this.reasoning = this.answer = undefined;
        break;
      case "message_update":
        this.onUpdate(event);
        break;
      case "message_end":
        this.onMessageEnd(event.message, event.entryTimestamp);
        break;
      case "tool_start":
        if (event.toolName === REPORT_FINDING) {
          // Its item shows once the call ends, as a finding or (refused) as the call: it keeps the place it started in.
          this.order.push(event.toolCallId);
          this.deferred.set(event.toolCallId, { index: this.index++, startedAt: this.callsStartedAt || Date.now(), name: event.toolName, input: event.args });
          break;
        }
        this.start({
          id: event.toolCallId,
          type: "toolCall",
          index: this.index++,
          startedAt: this.callsStartedAt || Date.now(),
          name: event.toolName,
          input: event.args,
          status: "inProgress",
        });
        break;
      case "nested_tool_start":
        this.start({
          id: event.toolCallId,
          type: "toolCall",
          parentItemId: event.parentId,
          startedAt: event.startedAt,
          name: event.toolName,
          input: event.args,
          status: "inProgress",
        });
        break;
      case "nested_tool_end":
        this.finishTool(event.toolCallId, event.result, event.isError, event.completedAt);
        break;
      case "compaction_end":
        if (event.result) {
          const item: Item = { id: this.nextId(), type: "compaction", index: this.index++, completedAt: event.result.timestamp, summary: event.result.summary };
          this.start(item);
          this.complete(item);
        }
        break;
      default:
        break;
    }
  }

  private nextId(): string {
    return ordinalId(this.turnId, this.ordinal++);
  }

  private start(item: Item): void {
    if (!this.items.has(item.id)) {
      if (item.parentItemId === undefined) this.order.push(item.id);
      else {
        const siblings = this.nested.get(item.parentItemId);
        if (siblings) siblings.push(item.id);
        else this.nested.set(item.parentItemId, [item.id]);
      }
    }
    this.items.set(item.id, item);
    this.sink.started(item);
  }

  private complete(item: Item): void {
    this.items.set(item.id, item);
    this.sink.completed(item);
  }

  private onUpdate(event: Extract<SessionEvent, { type: "message_update" }>): void {
    const update = event.event;
    const startedAt = event.message.timestamp;
    if (update.type === "thinking_start" || update.type === "thinking_delta") {
      this.reasoning ??= this.openPart("reasoning", startedAt);
      if (update.type === "thinking_delta" && update.delta) {
        this.reasoning.item.text += update.delta;
        this.sink.reasoningDelta(this.reasoning.item.id, update.delta);
      }
    } else if (update.type === "text_start" || update.type === "text_delta") {
      this.answer ??= this.openPart("agentMessage", startedAt);
      if (update.type === "text_delta" && update.delta) {
        this.answer.item.text += update.delta;
        this.sink.agentDelta(this.answer.item.id, update.delta);
      }
    }
  }

  private openPart(type: "reasoning" | "agentMessage", startedAt: number): StreamingPart {
    const item: ItemOf<"reasoning" | "agentMessage"> = { id: this.nextId(), type, index: this.index++, startedAt, text: "" };
    this.start(item);
    return { item };
  }

  private onMessageEnd(message: AgentMessage, completedAt: number): void {
    switch (message.role) {
      case "user": {
        const item = userItem(this.nextId(), this.index++, message, completedAt, this.firstUser ? this.clientMessageId : undefined);
        this.firstUser = false;
        this.start(item);
        this.complete(item);
        break;
      }
      case "assistant":
        this.finishAssistant(message, completedAt);
        break;
      case "toolResult":
        this.finishTool(message.toolCallId, message, message.isError, message.timestamp);
        break;
      case "custom": {
        if (message.display === false) break;
        const item = extensionItem(this.nextId(), this.index++, message, completedAt);
        this.start(item);
        this.complete(item);
        break;
      }
      default:
        break;
    }
  }

  /** Final content decides: parts that never streamed appear now; a failed reply's parts are withdrawn. */
  private finishAssistant(message: AssistantMessage, completedAt: number): void {
    for (const block of message.content) {
      if (block.type === "thinking") this.reasoning ??= this.openPart("reasoning", message.timestamp);
      else if (block.type === "text") this.answer ??= this.openPart("agentMessage", message.timestamp);
    }
    const parts = [this.reasoning, this.answer].filter((p): p is StreamingPart => p !== undefined);
    if (message.stopReason === "error") {
      for (const part of parts) {
        this.items.delete(part.item.id);
        this.sink.removed(part.item.id);
      }
    } else {
      const texts = {
        reasoning: message.content.flatMap((b) => (b.type === "thinking" ? [b.thinking] : [])).join("\n"),
        agentMessage: message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n"),
      };
      for (const part of parts) this.complete({ ...part.item, text: texts[part.item.type], startedAt: message.timestamp, completedAt });
    }
    this.reasoning = this.answer = undefined;
    this.callsStartedAt = completedAt;
  }

  /** A tool call's item, finished with its result: the same for the model's calls and for nested ones. */
  private finishTool(toolCallId: string, result: { content?: unknown; details?: unknown }, isError: boolean, completedAt: number): void {
    const deferred = this.deferred.get(toolCallId);
    if (deferred) return this.finishDeferred(toolCallId, deferred, { ...result, isError }, completedAt);
    const started = this.items.get(toolCallId);
    if (started?.type !== "toolCall") return;
    this.complete({ ...started, ...toolCallOutcome(result, isError, this.isDeclined(toolCallId)), completedAt });
  }

  /** A report_finding call ended: its finding's item, or the refused call's, at the place the call started. */
  private finishDeferred(
    toolCallId: string,
    call: { index: number; startedAt: number; name: string; input: unknown },
    result: { content?: unknown; details?: unknown; isError: boolean },
    completedAt: number,
  ): void {
    this.deferred.delete(toolCallId);
    const finding = findingOfCall(call.name, result);
    const times = { startedAt: call.startedAt, completedAt };
    const item: Item = finding
      ? findingItem(toolCallId, call.index, times, finding)
      : {
          id: toolCallId,
          type: "toolCall",
          index: call.index,
          ...times,
          name: call.name,
          input: call.input,
          ...toolCallOutcome(result, result.isError, this.isDeclined(toolCallId)),
        };
    // Already in `order`, where it started.
    this.items.set(item.id, item);
    this.sink.started(item);
    this.complete(item);
  }
}
