import { REPORT_FINDING, type SavedFinding } from "@knightcode/agent/tools/report-finding";
import type { ItemOf } from "@knightcode/app-server-protocol";

const SEVERITIES: ReadonlySet<string> = new Set(["critical", "high", "medium", "low", "info"]);
const SCOPES: ReadonlySet<string> = new Set(["uncommitted", "branch", "committed", "lastTurn"]);

const isLine = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 1;
const isText = (value: unknown): value is string => typeof value === "string";

/** The finding a report_finding result keeps in `details.reviewFinding`; a malformed one (a hand-edited transcript) is none. */
export function savedFindingOf(details: unknown): SavedFinding | undefined {
  const found = (details as { reviewFinding?: unknown } | null | undefined)?.reviewFinding as Record<string, unknown> | undefined;
  if (typeof found !== "object" || found === null) return undefined;
  const source = found.source as Record<string, unknown> | undefined;
  const valid =
    isText(found.findingId) &&
    isText(found.path) &&
    isText(found.hunkId) &&
    found.side === "new" &&
    isLine(found.startLine) &&
    isLine(found.endLine) &&
    isText(found.severity) &&
    SEVERITIES.has(found.severity) &&
    isText(found.title) &&
    isText(found.body) &&
    (found.suggestion === undefined || isText(found.suggestion)) &&
    Array.isArray(found.lines) &&
    found.lines.every(isText) &&
    typeof source === "object" &&
    source !== null &&
    isText(source.scope) &&
    SCOPES.has(source.scope);
  return valid ? (found as unknown as SavedFinding) : undefined;
}

/** A report_finding call's saved finding, when the call is one and succeeded. */
export function findingOfCall(name: string, result: { details?: unknown; isError?: boolean } | undefined): SavedFinding | undefined {
  if (name !== REPORT_FINDING || !result || result.isError === true) return undefined;
  return savedFindingOf(result.details);
}

/** The item a recorded finding shows as: the call's id, the finding's fields a client sees. */
export function findingItem(
  id: string,
  index: number | undefined,
  times: { startedAt: number; completedAt: number },
  finding: SavedFinding,
): ItemOf<"reviewFinding"> {
  const { findingId, path, hunkId, side, startLine, endLine, severity, title, body, suggestion, lines } = finding;
  return {
    id,
    type: "reviewFinding",
    ...(index === undefined ? {} : { index }),
    ...times,
    findingId,
    path,
    hunkId,
    side,
    startLine,
    endLine,
    severity,
    title,
    body,
    ...(suggestion === undefined ? {} : { suggestion }),
    lines,
  };
}

/** The newest finding among a branch's entries (root first) that `matches`, read from the report_finding results kept. */
export function findingIn(branch: readonly { type: string }[], matches: (finding: SavedFinding) => boolean): SavedFinding | undefined {
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!;
    if (entry.type !== "message") continue;
    const message = (entry as { message?: { role?: string; toolName?: string; details?: unknown; isError?: boolean } }).message;
    if (message?.role !== "toolResult" || typeof message.toolName !== "string") continue;
    const finding = findingOfCall(message.toolName, message);
    if (finding && matches(finding)) return finding;
  }
  return undefined;
}
