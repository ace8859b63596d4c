import { AppServerError } from "@knightcode/app-server-client/browser";
import { conn } from "../../connection/connection.js";
import { openThread } from "../../state/app-state.js";
import { reloaded } from "../../state/open-threads.js";
import { toast } from "../../state/toasts.js";
import { confirmAction } from "../../ui/modal.js";

export type RewindMode = "conversation" | "code" | "both";

/** Where an edited message goes: this thread rewound to before it (with its code, or not), or a fork from that point. */
export type ResendTo = "both" | "conversation" | "fork";

/** How many files, in words. */
const filesText = (count: number) => `${count} ${count === 1 ? "file" : "files"}`;

/**
 * Rewinds the thread to just before `turnId`. Files edited since the
 * turns ended make the server refuse: the user is shown them and asked
 * whether to lose those edits. Resolves false when they said no; rejects
 * with the server's other refusals. A conversation rewind reloads the
 * thread (thread/replaced), which the open threads already follow.
 */
export async function rewindTo(threadId: string, turnId: string, mode: RewindMode): Promise<boolean> {
  const request = (force: boolean) => conn().request("thread/rewind", { threadId, turnId, mode, ...(force ? { force: true } : {}) });
  let answer: Awaited<ReturnType<typeof request>>;
  try {
    answer = await request(false);
  } catch (error) {
    const paths = editedPaths(error);
    if (!paths) throw error;
    const yes = await confirmAction({
      title: "Files changed since",
      body: `${paths.join(", ")} changed after the turns you are undoing. Rewinding puts back the turn's version and loses those changes.`,
      confirm: "Rewind anyway",
      danger: true,
    });
    if (!yes) return false;
    answer = await request(true);
  }
  toast(mode === "conversation" ? "Rewound the conversation" : `Rewound ${filesText(answer.files.length)}`, "success");
  return true;
}

/** The files a refused code rewind names, when that is why it was refused. */
function editedPaths(error: unknown): string[] | undefined {
  if (!(error instanceof AppServerError) || error.code !== "gitConflict") return undefined;
  const data = error.data as { reason?: unknown; paths?: unknown } | undefined;
  return data?.reason === "diffChanged" && Array.isArray(data.paths) ? data.paths.map(String) : undefined;
}

/** Forks the thread from just before `turnId` (into a new worktree holding the code as it was then, when asked) and shows the fork. */
export async function forkFrom(threadId: string, turnId: string, worktree: boolean): Promise<string> {
  const forked = await conn().request("thread/fork", { threadId, turnId, ...(worktree ? { workspace: { mode: "worktree" as const } } : {}) });
  openThread(forked.thread.id);
  toast(`Forked into “${forked.thread.name || "New thread"}”`, "success");
  return forked.thread.id;
}

/**
 * Sends `text` again in place of the message that started `turnId`: in
 * this thread rewound to before it, or in a fork from that point.
 * Resolves false when a rewind was called off.
 */
export async function editAndResend(threadId: string, turnId: string, text: string, to: ResendTo): Promise<boolean> {
  let target = threadId;
  if (to === "fork") target = await forkFrom(threadId, turnId, false);
  else if (!(await rewindTo(threadId, turnId, to))) return false;
  // The rewound thread reloads (thread/replaced comes before the rewind's answer); the turn waits for it.
  await reloaded(target);
  await conn().request("turn/start", { threadId: target, text });
  return true;
}
