import type { ApprovalRequest } from "./types.js";

/**
 * The input of each of our built-in tools, as the model sends it and an
 * approval request shows it. Written here because the protocol package
 * carries no agent code; a type test in packages/app-server checks each
 * entry against the tool's own parameter schema, so they cannot drift.
 */
export interface BuiltinToolInputs {
  bash: { command: string; timeout?: number; network?: boolean };
  read: { path: string; offset?: number; limit?: number };
  write: { path: string; content: string };
  edit: { path: string; oldText: string; newText: string };
  ls: { path?: string; limit?: number };
  grep: { pattern: string; path?: string; glob?: string; ignoreCase?: boolean; literal?: boolean; context?: number; limit?: number };
  find: { pattern: string; path?: string; limit?: number };
  websearch: { query: string; count?: number };
  submit_plan: { plan: string };
  ask_user: { questions: { id: string; question: string; options: { label: string; description?: string }[] }[] };
}

export type BuiltinTool = keyof BuiltinToolInputs;

/** What `input` holds in an approval request about built-in tool `T`. */
export type ApprovalInput<T extends BuiltinTool> = BuiltinToolInputs[T];

/**
 * An approval request about built-in tool `T`: `tool` is its name, and
 * `input`, when it came inline (a large one comes as `inputRef`), has its shape.
 */
export type ToolApprovalRequest<T extends BuiltinTool> = Omit<ApprovalRequest, "tool" | "input"> & { tool: T; input?: ApprovalInput<T> };
