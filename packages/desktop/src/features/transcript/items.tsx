import { Component, type JSX } from "preact";
import { useState } from "preact/hooks";
import type { FileChange, HistoryItem, Item, ItemReference, PayloadRef, ToolCallItem, UserMessageItem } from "@knightcode/app-server-protocol";
import { reportError } from "../../state/toasts.js";
import { Button } from "../../ui/button.js";
import { CopyButton } from "../../ui/copy-button.js";
import { Icon, type IconName } from "../../ui/icons.js";
import { DiffView } from "./diff.js";
import { Markdown } from "./markdown.js";
import { formatBytes } from "./payload.js";
import { FindingCard } from "../review/finding-card.js";
import { readPayload } from "./store.js";
import { SubagentCards } from "./subagent-card.js";
import { SUBAGENT_TOOLS } from "./subagents.js";
import { renderView } from "./view-renderer.js";
import { VisibleText } from "../requests/visible.js";
import { visibleString } from "../requests/visible-text.js";

interface ItemProps {
  threadId: string;
  item: HistoryItem;
  /** Items nested under this one (a tool call's sub-calls). */
  nested?: HistoryItem[];
  /** A message handed to the turn while it ran (turn/steer), not the one that started it. */
  steer?: boolean;
}

/**
 * One item of a turn. Items are replaced, never edited in place, so an item
 * whose object did not change since the last frame skips its redraw: while a
 * reply streams, only the streaming item is drawn again.
 */
export class ItemBox extends Component<ItemProps> {
  override shouldComponentUpdate(next: ItemProps): boolean {
    return next.item !== this.props.item || next.nested !== this.props.nested || next.threadId !== this.props.threadId || next.steer !== this.props.steer;
  }
  override render(): JSX.Element {
    const { item, threadId, nested, steer } = this.props;
    return (
      <div class="item" data-item-id={item.id} data-item-type={item.type} data-steer={steer ? "true" : undefined}>
        {isReference(item) ? <ReferencedItem threadId={threadId} item={item} /> : <InlineItem threadId={threadId} item={item} nested={nested} steer={steer} />}
      </div>
    );
  }
}

function isReference(item: HistoryItem): item is ItemReference {
  return "payloadRef" in item && item.payloadRef !== undefined && !("text" in item) && !("name" in item) && !("summary" in item);
}

function InlineItem({ threadId, item, nested, steer }: { threadId: string; item: Item; nested?: HistoryItem[]; steer?: boolean }): JSX.Element {
  switch (item.type) {
    case "userMessage":
      return (
        <>
          {steer && (
            <p class="steer-mark">
              <span class="badge">Steer</span> sent while the turn ran
            </p>
          )}
          <UserMessage item={item} />
          <MessageActions text={item.text ?? ""} />
        </>
      );
    case "agentMessage":
      return (
        <>
          <Markdown text={item.text} />
          <MessageActions text={item.text} />
        </>
      );
    case "reasoning":
      // Collapsed by default: the answer matters more than the way to it.
      return (
        <details class="reasoning">
          <summary>{item.completedAt ? "Reasoning" : "Thinking…"}</summary>
          <div class="reasoning-body">
            <Markdown text={item.text} />
          </div>
        </details>
      );
    case "toolCall":
      return (
        <>
          {SUBAGENT_TOOLS.has(item.name) && <SubagentCards threadId={threadId} item={item} />}
          <ToolCall threadId={threadId} item={item} nested={nested} />
        </>
      );
    case "compaction":
      return (
        <details class="compaction">
          <summary>Earlier messages were summarized</summary>
          <Markdown text={item.summary} />
        </details>
      );
    case "extensionMessage": {
      const view = item.view ? renderView(item.view, { threadId, itemId: item.id }) : null;
      return (
        <div class="extension-message">
          {item.customType && <span class="badge">{item.customType}</span>}
          {view ?? <Markdown text={item.text} />}
        </div>
      );
    }
    case "reviewFinding":
      return <FindingCard threadId={threadId} item={item} />;
  }
}

/** Under a message: copying it as written (its Markdown source, not the drawn text). */
function MessageActions({ text }: { text: string }): JSX.Element | null {
  if (!text) return null;
  return (
    <div class="message-actions">
      <CopyButton text={text} label="Copy message" compact />
    </div>
  );
}

function UserMessage({ item }: { item: UserMessageItem }): JSX.Element {
  return (
    <div class="user-message">
      <span class="visually-hidden">You said:</span>
      {item.comments?.map((comment, n) => (
        <figure key={n} class="review-comment">
          <figcaption>
            {comment.path}:{comment.startLine}
            {comment.endLine !== comment.startLine ? `–${comment.endLine}` : ""}
          </figcaption>
          <blockquote>
            <pre>{comment.quote}</pre>
          </blockquote>
          <p>{comment.text}</p>
        </figure>
      ))}
      {item.text && <p class="user-text">{item.text}</p>}
      {item.images && item.images.length > 0 && (
        <div class="thumbs">
          {item.images.map((image, n) =>
            image.data ? (
              <img key={n} class="thumb" src={`data:${image.mimeType};base64,${image.data}`} alt={`Attachment ${n + 1}`} />
            ) : (
              <span key={n} class="badge">
                <Icon name="image" /> {image.path ?? "image"}
              </span>
            ),
          )}
        </div>
      )}
    </div>
  );
}

const STATUS: Record<ToolCallItem["status"], { icon: IconName; text: string }> = {
  inProgress: { icon: "dot", text: "running" },
  completed: { icon: "check", text: "done" },
  failed: { icon: "warning", text: "failed" },
  declined: { icon: "close", text: "declined" },
};

function ToolCall({ threadId, item, nested }: { threadId: string; item: ToolCallItem; nested?: HistoryItem[] }): JSX.Element {
  const status = STATUS[item.status];
  const view = item.view ? renderView(item.view, { threadId, itemId: item.id }) : null;
  return (
    <details class={`tool-call status-${item.status}`}>
      <summary>
        <Icon name={status.icon} class="tool-status" />
        <span class="tool-name">{item.name}</span>
        <span class="tool-summary">{summarize(item)}</span>
        <span class="visually-hidden">({status.text})</span>
      </summary>
      <div class="tool-body">
        <div class="tool-label">Input</div>
        {item.inputRef ? (
          <LoadFull payload={item.inputRef} label="input" />
        ) : (
          <pre class="tool-pre">
            <VisibleText text={JSON.stringify(item.input ?? {}, null, 2)} multiline />
          </pre>
        )}
        {item.fileChanges?.map((change) => (
          <FileChangeView key={change.path} change={change} />
        ))}
        {view}
        {(item.output !== undefined || item.outputRef) && <div class="tool-label">Output</div>}
        {item.outputRef ? (
          <LoadFull payload={item.outputRef} label="output" />
        ) : (
          item.output !== undefined && <pre class="tool-pre tool-output">{item.output}</pre>
        )}
        {nested && nested.length > 0 && (
          <div class="tool-nested">
            {nested.map((child) => (
              <ItemBox key={child.id} threadId={threadId} item={child} />
            ))}
          </div>
        )}
      </div>
    </details>
  );
}

/** The input in one short line: a path, a command, a query, or the JSON cut short. */
function summarize(item: ToolCallItem): string {
  const input = item.input;
  if (input && typeof input === "object") {
    const fields = input as Record<string, unknown>;
    for (const key of ["path", "file_path", "command", "pattern", "query", "url"]) {
      if (typeof fields[key] === "string") return oneLine(fields[key]);
    }
  }
  if (input === undefined) return item.inputRef ? `(${formatBytes(item.inputRef.bytes)} input)` : "";
  return oneLine(JSON.stringify(input));
}

/** Hidden characters written out (a bidi override would otherwise redraw a command as something else). */
function oneLine(text: string): string {
  const line = visibleString(text.replace(/\s+/g, " ").trim());
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

function FileChangeView({ change }: { change: FileChange }): JSX.Element {
  return (
    <div class="file-change">
      <div class="tool-label">
        {change.kind === "add" ? "Added" : change.kind === "delete" ? "Deleted" : "Changed"} {change.path}
      </div>
      {change.diff && <DiffView diff={change.diff} />}
    </div>
  );
}

/** A value too large to send inline: read on demand, shown scrolled to its end. */
function LoadFull({ payload, label }: { payload: PayloadRef; label: string }): JSX.Element {
  const [text, setText] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  if (text !== undefined) {
    return (
      <pre
        class="tool-pre tool-output loaded-payload"
        tabIndex={0}
        aria-label={`Full ${label}`}
        ref={(el) => {
          if (el) el.scrollTop = el.scrollHeight;
        }}
      >
        {text}
      </pre>
    );
  }
  const load = () => {
    setBusy(true);
    readPayload(payload).then(setText, (error: unknown) => {
      setBusy(false);
      reportError(error, `Loading the ${label}`);
    });
  };
  return (
    <Button onClick={load} disabled={busy} aria-busy={busy}>
      Load full {label} ({formatBytes(payload.bytes)})
    </Button>
  );
}

/** A whole item too large to send inline: it is read and drawn when asked. */
function ReferencedItem({ threadId, item }: { threadId: string; item: ItemReference }): JSX.Element {
  const [loaded, setLoaded] = useState<Item | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  if (loaded) return <InlineItem threadId={threadId} item={loaded} />;
  const load = () => {
    setBusy(true);
    readPayload(item.payloadRef).then(
      (text) => setLoaded(JSON.parse(text) as Item),
      (error: unknown) => {
        setBusy(false);
        reportError(error, "Loading the message");
      },
    );
  };
  return (
    <div class="item-ref">
      <span>A large {TYPE_NAMES[item.type]}.</span>{" "}
      <Button onClick={load} disabled={busy} aria-busy={busy}>
        Load full output ({formatBytes(item.payloadRef.bytes)})
      </Button>
    </div>
  );
}

const TYPE_NAMES: Record<ItemReference["type"], string> = {
  userMessage: "message",
  agentMessage: "reply",
  reasoning: "reasoning",
  toolCall: "tool call",
  compaction: "summary",
  extensionMessage: "extension message",
  reviewFinding: "review finding",
};
