import type { JSX } from "preact";
import type { ToolCallItem } from "@knightcode/app-server-protocol";
import { openThread } from "../../state/app-state.js";
import { Button } from "../../ui/button.js";
import { Icon } from "../../ui/icons.js";
import { subagentLive } from "./store.js";
import { subagentsOfCall, type SubagentCardEntry } from "./subagents.js";

const STATUS_TEXT: Record<string, { text: string; badge?: "running" | "failed" }> = {
  starting: { text: "Starting", badge: "running" },
  working: { text: "Working", badge: "running" },
  inProgress: { text: "Working", badge: "running" },
  running: { text: "Still working", badge: "running" },
  completed: { text: "Done" },
  interrupted: { text: "Interrupted" },
  failed: { text: "Failed", badge: "failed" },
  declined: { text: "Declined", badge: "failed" },
  closed: { text: "Closed" },
};

/** Its last words: the end of what it said, on one line. */
function lastWords(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 240 ? `…${line.slice(-239)}` : line;
}

/**
 * A call of a sub-agent tool, as a card per sub-agent it is about: its name,
 * where it stands, what it said last (live while it works) and the way to
 * its own thread. The call's input and output stay in the tool call below.
 */
export function SubagentCards({ threadId, item }: { threadId: string; item: ToolCallItem }): JSX.Element {
  const entries = subagentsOfCall(threadId, item, subagentLive.value);
  return (
    <div class="subagent-cards">
      {entries.map((entry, n) => (
        <SubagentCard key={entry.threadId ?? n} entry={entry} />
      ))}
    </div>
  );
}

function SubagentCard({ entry }: { entry: SubagentCardEntry }): JSX.Element {
  const name = entry.name || "sub-agent";
  const status = STATUS_TEXT[entry.status] ?? { text: entry.status };
  const { threadId } = entry;
  return (
    <section class="subagent-card" aria-label={`Sub-agent ${name}`} data-subagent-status={entry.status}>
      <div class="subagent-head">
        <Icon name="handoff" />
        <span class="subagent-name">{name}</span>
        <span class={`badge${status.badge ? ` badge-${status.badge}` : ""}`}>{status.text}</span>
        {threadId && (
          <Button variant="ghost" class="subagent-open" onClick={() => openThread(threadId)}>
            Open {name}
          </Button>
        )}
      </div>
      {entry.text && <p class="subagent-line">{lastWords(entry.text)}</p>}
    </section>
  );
}
