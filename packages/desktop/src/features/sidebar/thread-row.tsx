import { Component, type JSX } from "preact";
import type { ThreadStatus, ThreadSummary } from "@knightcode/app-server-protocol";
import { openThread } from "../../state/app-state.js";
import { IconButton } from "../../ui/button.js";
import { Icon } from "../../ui/icons.js";
import { archiveThread, deleteThread, titleOf, unarchiveThread } from "./actions.js";
import { dayText, fullText } from "./time-format.js";

type Badge = { kind: "running" | "waiting" | "failed"; text: string; detail?: string };

/** Waiting on you outranks running; a server error is its own failure, apart from the last turn's outcome. */
export function badgeOf(status: ThreadStatus, lastTurnFailed: boolean): Badge | undefined {
  if (status.type === "active") return status.waitingOn.length > 0 ? { kind: "waiting", text: "Waiting on you" } : { kind: "running", text: "Running" };
  if (status.type === "systemError") return { kind: "failed", text: "Failed", detail: status.message };
  if (lastTurnFailed) return { kind: "failed", text: "Failed", detail: "The last turn failed" };
  return undefined;
}

export function relativeTime(iso: string, now: number): string {
  const then = Date.parse(iso);
  const minutes = Math.floor((now - then) / 60_000);
  if (minutes < 1) return "now";
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h`;
  const days = Math.floor(hours / 24);
  if (days < 7) return `${days} d`;
  return dayText(then);
}

export interface RowProps {
  row: ThreadSummary;
  active: boolean;
  unread: boolean;
  lastTurnFailed: boolean;
  archived: boolean;
  now: number;
}

/**
 * One row, redrawn only when one of its props changed: a live event patches
 * one row (the others keep their objects), so it costs that row, not the
 * whole list, and a status change as a turn starts stays cheap.
 */
export class ThreadRow extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps): boolean {
    const was = this.props;
    return (
      next.row !== was.row ||
      next.active !== was.active ||
      next.unread !== was.unread ||
      next.lastTurnFailed !== was.lastTurnFailed ||
      next.archived !== was.archived ||
      next.now !== was.now
    );
  }
  override render(): JSX.Element {
    return <Row {...this.props} />;
  }
}

function Row({ row, active, unread, lastTurnFailed, archived, now }: RowProps): JSX.Element {
  const title = titleOf(row);
  const badge = badgeOf(row.status, lastTurnFailed);
  return (
    <li class={`thread-row${active ? " is-active" : ""}`} data-thread-id={row.id} data-unread={unread ? "true" : undefined} data-status={badge?.kind}>
      <button type="button" class="thread-open" aria-current={active ? "page" : undefined} onClick={() => openThread(row.id)} title={title}>
        <span class="thread-row-title">
          {unread && <span class="unread-dot" aria-hidden="true" />}
          <span class="thread-row-name">{title}</span>
          {unread && <span class="visually-hidden">, unread</span>}
        </span>
        <span class="thread-row-meta">
          {row.workspaceMode === "worktree" && (
            <span class="badge badge-worktree" title={row.workspace.branch ?? row.workspace.path}>
              <Icon name="branch" size={12} />
              worktree
            </span>
          )}
          {badge && (
            <span class={`badge badge-${badge.kind}`} title={badge.detail}>
              {badge.text}
            </span>
          )}
          {/* The tooltip's full date is written when a pointer comes, not for every row drawn. */}
          <time class="thread-row-time" dateTime={row.updatedAt} onPointerEnter={(e) => (e.currentTarget.title = fullText(row.updatedAt))}>
            {relativeTime(row.updatedAt, now)}
          </time>
        </span>
      </button>
      <div class="thread-row-actions">
        {archived ? (
          <>
            <IconButton icon="unarchive" label={`Unarchive ${title}`} onClick={() => void unarchiveThread(row)} />
            <IconButton icon="trash" label={`Delete ${title}`} onClick={() => void deleteThread(row)} />
          </>
        ) : (
          <IconButton icon="archive" label={`Archive ${title}`} onClick={() => void archiveThread(row)} />
        )}
      </div>
    </li>
  );
}
