import type { Api, Model, ModelThinkingLevel } from "@mariozechner/pi-ai";
import { titleFromText } from "@knightcode/store/listing/title";
import { workspaceView } from "@knightcode/repo/worktrees/workspace";
import type { SessionFile } from "@knightcode/store/session/session-file";
import type { WorkspaceState } from "@knightcode/store/session/format";
import type { Thread, ThreadStatus } from "@knightcode/app-server-protocol";
import type { ThreadModes } from "../approvals/thread-modes.js";

/** A thread's default name: the first line of its first message, bounded as listings bound titles. */
export function derivedName(firstUserText: string | undefined): string {
  return titleFromText(firstUserText ?? "");
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** A loaded thread as the wire shows it. */
export function threadObject(parts: {
  id: string;
  name: string;
  file: SessionFile;
  place: WorkspaceState;
  status: ThreadStatus;
  model: Model<Api> | undefined;
  thinkingLevel: ModelThinkingLevel;
  modes: Pick<ThreadModes, "approvalMode" | "planMode">;
}): Thread {
  const { file, model } = parts;
  const header = file.header;
  return {
    id: parts.id,
    name: parts.name,
    cwd: parts.place.cwd,
    createdAt: header.createdAt,
    updatedAt: isoTime(file.updatedAt),
    ...(header.forkedFromId ? { forkedFromId: header.forkedFromId } : {}),
    ...(header.parentThreadId === undefined ? {} : { parentThreadId: header.parentThreadId }),
    ...(header.parentCallId === undefined ? {} : { parentCallId: header.parentCallId }),
    sessionFile: file.path,
    status: parts.status,
    workspace: workspaceView(parts.place),
    model: model ? { provider: model.provider, id: model.id } : null,
    thinkingLevel: model && !model.reasoning ? "off" : parts.thinkingLevel,
    approvalMode: parts.modes.approvalMode,
    planMode: parts.modes.planMode,
  };
}
