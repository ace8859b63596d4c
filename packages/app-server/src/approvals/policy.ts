import { broadFolder } from "@knightcode/system/fs/broad-folders";
import { isWithin, realTarget } from "@knightcode/system/fs/real-target";
import { resolveToolPath } from "@knightcode/agent/tools/context";
import { SUBAGENT_TOOLS } from "@knightcode/agent/tools/subagents";
import { REPORT_FINDING } from "@knightcode/agent/tools/report-finding";
import type { ApprovalDecision, ApprovalMode } from "@knightcode/app-server-protocol";
import { controlReason, type ControlLookups } from "./control-paths.js";

export type ToolClass = "readOnly" | "edit" | "shell" | "other";

export type Decision = ApprovalDecision;

/**
 * Tools that run without asking. The sub-agent tools are among them: what a
 * sub-agent does goes through its own gate, under its parent's approval
 * mode and plan mode.
 */
const READ_ONLY = new Set(["read", "grep", "find", "ls", "ask_user", "submit_plan", REPORT_FINDING, ...SUBAGENT_TOOLS]);
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

/**
 * The path an edit or write targets, resolved exactly as the write and edit
 * tools resolve it (`~` included), so the judgement is about the file the
 * tool will write; undefined when the input names none or the tool would
 * refuse the path.
 */
export function editTarget(input: unknown, cwd: string): string | undefined {
  const path = (input as { path?: unknown } | null)?.path;
  if (typeof path !== "string" || path === "") return undefined;
  try {
    return resolveToolPath({ cwd }, path);
  } catch {
    return undefined;
  }
}

export interface GateVerdict {
  /** Run without asking. */
  allow: boolean;
  /** Why the user is asked, beyond the mode: a write outside the workspace or into a place that decides what later runs. */
  reason?: string;
}

/**
 * The approvals table: read-only tools always run; edits ask only in `ask`;
 * shells and every other tool ask in `ask` and `autoEdit`; `fullAccess`
 * runs all. Outside `fullAccess` some edits ask in every mode, with a
 * reason and never covered by a session grant: a write outside the
 * workspace (every write, when the workspace is the root, a home folder or
 * a system folder), and a write into a place whose files change what later
 * commands or threads run (`.git/`, `.knightcode/`, a folder git would take
 * for a repository, the agent folder, code the settings load).
 */
export interface VerdictRequest {
  mode: ApprovalMode;
  kind: ToolClass;
  input: unknown;
  /** The thread's folder. */
  workspace: string;
  controls?: ControlLookups;
}

export function verdict({ mode, kind, input, workspace, controls = {} }: VerdictRequest): GateVerdict {
  if (kind === "readOnly" || mode === "fullAccess") return { allow: true };
  if (kind !== "edit") return { allow: false };
  const target = editTarget(input, workspace);
  // Without a path the tool writes nothing (it refuses the call), so only the mode decides.
  if (target === undefined) return { allow: mode === "autoEdit" };
  const real = realTarget(target);
  // The user sees where the write really lands, not only the name it was given.
  const shown = real === target ? target : `${target}, which resolves to ${real}`;
  const broad = broadFolder(workspace);
  const realRoot = realTarget(workspace);
  const inside = broad === undefined && isWithin(realRoot, real);
  const control = controlReason(realRoot, real, inside, controls);
  if (!inside) {
    const why = broad ? `; the thread's folder ${workspace} is ${broad}, so no write counts as inside it` : "";
    return { allow: false, reason: `writes outside the workspace: ${shown}${why}${control ? `; it also ${control}` : ""}` };
  }
  if (control) return { allow: false, reason: `${control}: ${shown}` };
  return { allow: mode === "autoEdit" };
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
