import type { JSX } from "preact";
import { useState } from "preact/hooks";
import type { ThreadSummary } from "@knightcode/app-server-protocol";
import { activeThreadId } from "../../state/app-state.js";
import { Icon } from "../../ui/icons.js";
import { titleOf } from "./actions.js";
import { failedLastTurn, unread } from "./store.js";
import { ThreadRow } from "./thread-row.js";

interface Props {
  parent: ThreadSummary;
  /** Its sub-agents, oldest first. */
  rows: ThreadSummary[];
  archived: boolean;
  now: number;
}

/**
 * The sub-agents a thread started, under its row: a count that folds open
 * into their rows. Open by itself while the parent or one of them is the
 * open thread, or one of them works; the user's fold wins after that.
 */
export function SubagentRows({ parent, rows, archived, now }: Props): JSX.Element {
  const [chosen, setChosen] = useState<boolean | undefined>(undefined);
  const active = activeThreadId.value;
  const running = rows.filter((row) => row.status.type === "active").length;
  const open = chosen ?? (active === parent.id || running > 0 || rows.some((row) => row.id === active));
  const listId = `subagents-${parent.id}`;
  return (
    <li class="thread-children">
      <button type="button" class="subagents-toggle" aria-expanded={open} aria-controls={listId} onClick={() => setChosen(!open)}>
        <Icon name={open ? "chevronDown" : "chevronRight"} size={12} />
        {rows.length} {rows.length === 1 ? "sub-agent" : "sub-agents"}
        {running > 0 && <span class="subagents-running">, {running} working</span>}
      </button>
      <ul id={listId} class="thread-rows subagent-rows" hidden={!open} aria-label={`Sub-agents of ${titleOf(parent)}`}>
        {rows.map((row) => (
          <ThreadRow
            key={row.id}
            row={row}
            active={row.id === active}
            unread={unread.value.has(row.id)}
            lastTurnFailed={failedLastTurn.value.has(row.id)}
            archived={archived}
            now={now}
          />
        ))}
      </ul>
    </li>
  );
}
