import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { ApprovalDecision, ApprovalMode } from "@knightcode/app-server-protocol";

export type ToolClass = "readOnly" | "edit" | "shell" | "other";

export type Decision = ApprovalDecision;

const READ_ONLY = new Set(["read", "grep", "find", "ls", "ask_user", "submit_plan"]);
const EDITS = new Set(["edit", "write"]);
const SHELLS = new Set(["bash", "powershell"]);

/**
 * Which row of the approvals table a tool is on. The name alone does not
 * vouch for a tool: an extension's replacement for `read` or `edit` is an
 * extension tool, and one named after a shell stays a shell, so it is never
 * offered a session grant.
 */
export function classifyTool(name: string, builtin = true): ToolClass {
  if (SHELLS.has(name)) return "shell";
  if (!builtin) return "other";
  if (READ_ONLY.has(name)) return "readOnly";
  if (EDITS.has(name)) return "edit";
  return "other";
}

/** The path an edit or write targets, resolved against the cwd; undefined when the input names none. */
export function editTarget(input: unknown, cwd: string): string | undefined {
  const path = (input as { path?: unknown } | null)?.path;
  if (typeof path !== "string" || path === "") return undefined;
  const expanded = path.startsWith("~/") ? `${process.env.HOME ?? ""}${path.slice(1)}` : path;
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
}

/** The path with every symbolic link in its existing part resolved: where a write really lands. */
export function realTarget(path: string): string {
  let existing = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(existing), ...rest.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return path;
      rest.push(basename(existing));
      existing = parent;
    }
  }
}

export function isInside(root: string, path: string): boolean {
  const rel = relative(realTarget(resolve(root)), realTarget(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Folders whose files decide what later commands do: git runs hooks and
 * configured programs (`core.fsmonitor`, `core.pager`) from `.git/`, and
 * `.knightcode/` holds a project's settings and extensions. A write there
 * can turn an approved `git status` into any command, so it is asked about
 * on its own.
 */
const CONTROL_FOLDERS = [".git", ".knightcode"];

function controlFolderOf(root: string, path: string): string | undefined {
  const rel = relative(realTarget(resolve(root)), realTarget(path));
  return rel.split(/[\\/]/).find((segment) => CONTROL_FOLDERS.includes(segment.toLowerCase()));
}

export interface GateVerdict {
  /** Run without asking. */
  allow: boolean;
  /** Why the user is asked, beyond the mode (an outside-workspace write). */
  reason?: string;
}

/**
 * The approvals table: read-only tools always run; edits ask only in `ask`
 * (and a write outside the workspace or into `.git/` or `.knightcode/` asks
 * in `autoEdit` too, never covered by a session grant); shells and
 * every other tool ask in `ask` and `autoEdit`; `fullAccess` runs all.
 */
export function verdict(mode: ApprovalMode, kind: ToolClass, input: unknown, workspace: string): GateVerdict {
  if (kind === "readOnly" || mode === "fullAccess") return { allow: true };
  if (kind === "edit") {
    const target = editTarget(input, workspace);
    const outside = target !== undefined && !isInside(workspace, target);
    if (outside) return { allow: false, reason: `writes outside the workspace: ${target}` };
    const control = target === undefined ? undefined : controlFolderOf(workspace, target);
    if (control) return { allow: false, reason: `writes into ${control}/, whose files can change what later commands run: ${target}` };
    return { allow: mode === "autoEdit" };
  }
  return { allow: false };
}

/** The choices a request offers: never acceptForSession for a shell, acceptPrefixForSession only with a recognized prefix. */
export function offeredDecisions(kind: ToolClass, prefix: string[] | undefined): Decision[] {
  const decisions: Decision[] = ["accept"];
  if (kind === "shell") {
    if (prefix) decisions.push("acceptPrefixForSession");
  } else {
    decisions.push("acceptForSession");
  }
  decisions.push("decline", "cancel");
  return decisions;
}

export const MAX_DECLINE_MESSAGE = 4000;

/**
 * What an answer means. Only a well-formed answer with an offered decision
 * counts; anything else - an unoffered choice, unknown fields, a message that
 * is not text, an error - is a decline and grants nothing. A decline's
 * message is cut to its bound.
 */
export function interpretAnswer(answer: unknown, offered: readonly Decision[]): { decision: Decision; message?: string } {
  if (answer === null || typeof answer !== "object" || Array.isArray(answer)) return { decision: "decline" };
  const value = answer as Record<string, unknown>;
  if (Object.keys(value).some((key) => key !== "decision" && key !== "message")) return { decision: "decline" };
  const { decision, message } = value;
  if (typeof decision !== "string" || !offered.includes(decision as Decision)) return { decision: "decline" };
  if (message !== undefined && typeof message !== "string") return { decision: "decline" };
  if (decision !== "decline") return { decision: decision as Decision };
  const text = message?.slice(0, MAX_DECLINE_MESSAGE);
  return text ? { decision: "decline", message: text } : { decision: "decline" };
}
