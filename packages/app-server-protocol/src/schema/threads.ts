import { Type } from "typebox";
import { Closed, EmptyObject, Warning } from "./common.js";
import { notification, request } from "./define.js";
import { reasons } from "../reasons.js";
import { HistoryItem, Item, PayloadRef } from "./items.js";
import { View } from "./views.js";
import { AtTurn, LeafId } from "./rewind.js";
import { ApprovalMode, FileTotals, ModelRef, ModelSummary, ThinkingLevel, TokenUsage, TurnError } from "@knightcode/schema/threads";

const IsoTime = Type.String({ description: "ISO 8601 time." });
const Millis = Type.Integer({ minimum: 0, description: "Unix milliseconds." });
const ThreadId = Type.String({ minLength: 1, maxLength: 128, description: "The thread's id." });
const Cursor = Type.Optional(
  Type.Union([Type.String({ maxLength: 4096 }), Type.Null()], { description: "A nextCursor from an earlier page; null or absent for the first page." }),
);

export const ThreadStatus = Type.Union(
  [
    Type.Object({ type: Type.Literal("notLoaded") }, Closed),
    Type.Object({ type: Type.Literal("idle") }, Closed),
    Type.Object({ type: Type.Literal("active"), waitingOn: Type.Array(Type.Union([Type.Literal("approval"), Type.Literal("dialog")])) }, Closed),
    Type.Object({ type: Type.Literal("systemError"), message: Type.String() }, Closed),
  ],
  { $id: "ThreadStatus", description: "Whether the thread is loaded and what a running thread waits on." },
);

export const WorkspaceMode = Type.Union([Type.Literal("local"), Type.Literal("worktree")], {
  $id: "WorkspaceMode",
  description: "local: the user's checkout; worktree: a managed git worktree of the thread's own.",
});

export const Workspace = Type.Object(
  {
    mode: WorkspaceMode,
    path: Type.Optional(Type.String({ description: "The worktree's folder (worktree mode); the thread's cwd is inside it." })),
    baseRef: Type.Optional(Type.String({ description: "The full id of the commit the worktree was made from." })),
    branch: Type.Optional(Type.String({ description: "The branch the thread works on, once it has one." })),
  },
  { ...Closed, $id: "Workspace", description: "Where the thread runs." },
);

/** thread/start's choice of workspace. */
const WorkspaceRequest = Type.Union(
  [
    Type.Object({ mode: Type.Literal("local") }, Closed),
    Type.Object(
      {
        mode: Type.Literal("worktree"),
        baseRef: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "A ref or commit to start from; the checkout's HEAD by default." })),
        carryLocalChanges: Type.Optional(
          Type.Boolean({ description: "Copy the checkout's uncommitted changes (untracked files included, ignored ones not); the checkout keeps them." }),
        ),
        environment: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 128,
            description: "The name of an environment of the project's .knightcode/environments.json whose setup script runs in the new worktree.",
          }),
        ),
      },
      Closed,
    ),
  ],
  { description: "local by default. A cwd inside a managed worktree joins that worktree whatever this says." },
);

export const Thread = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    cwd: Type.String({ description: "The folder the thread runs in: inside its worktree for a worktree thread." }),
    createdAt: IsoTime,
    updatedAt: IsoTime,
    forkedFromId: Type.Optional(Type.String({ description: "The parent's header id." })),
    parentThreadId: Type.Optional(Type.String({ description: "Only on a sub-agent: the thread whose model started it." })),
    parentCallId: Type.Optional(Type.String({ description: "Only on a sub-agent: the id of the parent's tool call that started it." })),
    sessionFile: Type.Optional(Type.String({ description: "The session file's path, once saved." })),
    status: ThreadStatus,
    workspace: Workspace,
    model: Type.Union([ModelRef, Type.Null()], { description: "Null until a usable model is chosen." }),
    thinkingLevel: ThinkingLevel,
    approvalMode: ApprovalMode,
    planMode: Type.Boolean({ description: "Only read-only tools and submit_plan run until the user approves a plan." }),
  },
  { ...Closed, $id: "Thread", description: "A loaded thread: where it runs, its model and its settings." },
);

export const ThreadSummary = Type.Object(
  {
    id: Type.String(),
    title: Type.String({ description: "The thread's name, or the first line of its first message; at most 120 characters." }),
    name: Type.Optional(Type.String({ description: "Present when a name was set." })),
    cwd: Type.String({ description: "The project the thread belongs to: the folder it was started from, also for a worktree thread." }),
    createdAt: IsoTime,
    updatedAt: IsoTime,
    forkedFromId: Type.Optional(Type.String()),
    parentThreadId: Type.Optional(Type.String({ description: "Only on a sub-agent: the thread whose model started it." })),
    parentCallId: Type.Optional(Type.String({ description: "Only on a sub-agent: the id of the parent's tool call that started it." })),
    workspaceMode: WorkspaceMode,
    workspace: Workspace,
    archived: Type.Boolean(),
    status: ThreadStatus,
    sessionFile: Type.String(),
  },
  { ...Closed, $id: "ThreadSummary", description: "A thread as lists and history show it, loaded or not." },
);

export const Turn = Type.Object(
  {
    id: Type.String(),
    status: Type.Union([Type.Literal("inProgress"), Type.Literal("completed"), Type.Literal("failed"), Type.Literal("interrupted")]),
    startedAt: Millis,
    completedAt: Type.Optional(Millis),
    error: Type.Optional(TurnError),
    files: Type.Optional(Type.Array(FileTotals)),
    items: Type.Optional(Type.Array(HistoryItem, { description: "Only in history, never in turn notifications." })),
    // A turn over the inline limit: items left out, payload/read returns the whole turn as JSON.
    payloadRef: Type.Optional(PayloadRef),
  },
  { ...Closed, $id: "Turn", description: "One user message and everything the agent did for it." },
);

const Widget = Type.Object(
  {
    key: Type.String(),
    placement: Type.Union([Type.Literal("aboveEditor"), Type.Literal("belowEditor")]),
    lines: Type.Optional(Type.Array(Type.String())),
    view: Type.Optional(View),
  },
  Closed,
);

export const ThreadUi = Type.Object(
  {
    statuses: Type.Array(Type.Object({ key: Type.String(), text: Type.String() }, Closed)),
    title: Type.Optional(Type.String()),
    workingMessage: Type.Optional(Type.String()),
    workingVisible: Type.Boolean(),
    widgets: Type.Array(Widget),
  },
  { ...Closed, $id: "ThreadUi", description: "The thread's extension UI as it stands when the response is written." },
);

export const QueueSnapshot = Type.Object(
  {
    steering: Type.Array(Type.String(), { description: "Texts the running turn takes at its next step." }),
    followUp: Type.Array(
      Type.Object(
        {
          id: Type.String({ description: "The queueId." }),
          text: Type.String({ description: "The queued text." }),
          attachments: Type.Optional(Type.Integer({ minimum: 1, description: "How many images go with it." })),
        },
        Closed,
      ),
      { description: "Inputs that start turns of their own, oldest first." },
    ),
  },
  { ...Closed, $id: "QueueSnapshot", description: "Messages waiting for the running turn: steering goes in at the next step, followUp starts turns after it." },
);

const ThreadCreated = Type.Object(
  {
    thread: Thread,
    warnings: Type.Array(Warning, { description: "Problems found while loading settings, extensions or trust; the thread started anyway." }),
    ui: ThreadUi,
  },
  Closed,
);

export const threads = {
  clientRequests: {
    "thread/start": request({
      params: Type.Object(
        {
          cwd: Type.String({ minLength: 1, maxLength: 4096, description: "An existing directory: the project." }),
          approvalMode: Type.Optional(ApprovalMode),
          model: Type.Optional(ModelRef),
          thinkingLevel: Type.Optional(ThinkingLevel),
          workspace: Type.Optional(WorkspaceRequest),
        },
        Closed,
      ),
      result: ThreadCreated,
      errors: ["notGitRepo", "gitConflict"],
      reasons: reasons("noModel", "modelNotFound", "invalidThinkingLevel", "localChanges", "patchFailed"),
      doc: "Creates a thread (its session file exists at once), loads it and subscribes the caller; in worktree mode, in a new managed worktree made first.",
    }),
    "thread/resume": request({
      params: Type.Object(
        {
          threadId: ThreadId,
          cursor: Cursor,
          afterSeq: Type.Optional(
            Type.Integer({
              minimum: 0,
              description:
                "The last seq this client saw of the thread: what came after it is sent again right after the answer, when the server still holds it.",
            }),
          ),
        },
        Closed,
      ),
      result: Type.Object(
        {
          thread: Thread,
          turns: Type.Array(Turn),
          nextCursor: Type.Optional(Type.String({ description: "Present when there is another page: pass it as cursor." })),
          runningTurn: Type.Optional(Turn),
          queue: QueueSnapshot,
          usage: TokenUsage,
          warnings: Type.Array(Warning),
          ui: ThreadUi,
          replayed: Type.Optional(
            Type.Boolean({
              description:
                "Only with afterSeq. true: every notification after afterSeq follows this answer, in order, before anything newer. false: the server no longer holds them; this answer is the whole state.",
            }),
          ),
        },
        Closed,
      ),
      errors: ["threadNotFound", "threadLockedElsewhere", "invalidCursor", "archiveConflict"],
      doc: "Loads and owns a thread and subscribes in the same step as it builds the answer: the first history page and live snapshots.",
    }),
    "thread/read": request({
      params: Type.Object({ threadId: ThreadId, cursor: Cursor, leafId: Type.Optional(LeafId) }, Closed),
      result: Type.Object(
        {
          thread: ThreadSummary,
          turns: Type.Array(Turn),
          nextCursor: Type.Optional(Type.String({ description: "Present when there is another page: pass it as cursor." })),
        },
        Closed,
      ),
      errors: ["threadNotFound", "invalidCursor"],
      doc: "Reads a page of saved history (newest page first) without loading, locking or writing the thread; archived threads too. A turn this server is running reads as inProgress, as it stands.",
    }),
    "thread/list": request({
      params: Type.Object(
        {
          cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: "Only this project's threads." })),
          archived: Type.Optional(Type.Boolean({ description: "List archived threads instead." })),
          search: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 200,
              description: "Only threads whose title (as `title` shows it) contains this text, ignoring case. A cursor keeps the search it was made with.",
            }),
          ),
          parentThreadId: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: "Only the sub-agents this thread started." })),
          cursor: Cursor,
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: "50 by default." })),
        },
        Closed,
      ),
      result: Type.Object(
        {
          threads: Type.Array(ThreadSummary),
          nextCursor: Type.Optional(Type.String({ description: "Present when there is another page: pass it as cursor." })),
        },
        Closed,
      ),
      errors: ["invalidCursor"],
      doc: "Thread summaries newest first, from each sessions folder's index; later pages come from a snapshot of the first.",
    }),
    "thread/fork": request({
      params: Type.Object({ threadId: ThreadId, turnId: Type.Optional(AtTurn), workspace: Type.Optional(WorkspaceRequest) }, Closed),
      result: ThreadCreated,
      errors: ["threadNotFound", "notGitRepo", "gitConflict"],
      doc: 'Copies a thread\'s history into a new thread named "<name> (fork)", loads it and subscribes the caller. Beyond the spec: up to a turn (turnId), in a new worktree (workspace, as thread/start takes it) whose files are as that turn found them.',
    }),
    "thread/unsubscribe": request({
      params: Type.Object({ threadId: ThreadId }, Closed),
      result: Type.Object(
        {
          status: Type.Union([Type.Literal("unsubscribed"), Type.Literal("notSubscribed")], {
            description: "notSubscribed: this connection was not subscribed.",
          }),
        },
        Closed,
      ),
      doc: "Stops this connection's thread notifications.",
    }),
    "thread/name/set": request({
      params: Type.Object({ threadId: ThreadId, name: Type.String({ minLength: 1, maxLength: 200, description: "The new name." }) }, Closed),
      result: EmptyObject,
      errors: ["threadNotFound"],
      doc: "Renames a loaded thread; every connection gets thread/name/updated.",
    }),
    "thread/settings/update": request({
      params: Type.Object(
        {
          threadId: ThreadId,
          model: Type.Optional(ModelRef),
          thinkingLevel: Type.Optional(ThinkingLevel),
          approvalMode: Type.Optional(ApprovalMode),
          planMode: Type.Optional(Type.Boolean({ description: "Applies at once, mid-turn too, like approvalMode." })),
        },
        Closed,
      ),
      result: Type.Object({ thread: Thread }, Closed),
      errors: ["threadNotFound", "turnInProgress"],
      reasons: reasons("modelNotFound", "invalidThinkingLevel"),
      doc: "Changes a loaded thread's model, thinking level or approval mode for its next turns.",
    }),
    "thread/archive": request({
      params: Type.Object({ threadId: ThreadId }, Closed),
      result: EmptyObject,
      errors: ["threadNotFound", "turnInProgress", "threadLockedElsewhere", "archiveConflict"],
      doc: "Moves an idle thread's transcript into the archived folder (unloading it first); never replaces a file there. Every connection gets thread/archived.",
    }),
    "thread/unarchive": request({
      params: Type.Object({ threadId: ThreadId }, Closed),
      result: EmptyObject,
      errors: ["threadNotFound", "threadLockedElsewhere", "archiveConflict"],
      doc: "Moves an archived transcript back beside the active ones; never replaces a file. Every connection gets thread/unarchived.",
    }),
    "thread/delete": request({
      params: Type.Object({ threadId: ThreadId }, Closed),
      result: EmptyObject,
      errors: ["threadNotFound", "threadNotArchived", "turnInProgress", "threadLockedElsewhere", "archiveConflict"],
      doc: "Removes an archived transcript for good. Every connection gets thread/deleted.",
    }),
    "model/list": request({
      params: Type.Object(
        {
          available: Type.Optional(Type.Boolean({ description: "Only the models whose `available` is this." })),
          provider: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: "Only this provider's models." })),
        },
        { ...Closed, description: "Filters, all optional: without one, every model." },
      ),
      result: Type.Object({ models: Type.Array(ModelSummary) }, Closed),
      doc: "Every model the server knows, with thinking levels, context window, prices and whether credentials are present; an unavailable one says why in unavailableReason. available and provider narrow the list; without them it is whole. See docs/models.md.",
    }),
  },
  serverNotifications: {
    "thread/started": notification({
      params: Type.Object({ thread: Thread }, Closed),
      doc: "A thread was created (start, fork or a session-replacing command); to every connection.",
    }),
    "thread/replaced": notification({
      params: Type.Object(
        {
          threadId: Type.String({ description: "The thread that was replaced." }),
          thread: Thread,
          warnings: Type.Array(Warning, { description: "The new thread's load warnings." }),
          ui: ThreadUi,
        },
        Closed,
      ),
      doc: "A command replaced the thread (/new, an extension's ctx.newSession()): this connection is now subscribed to `thread` instead, and the old thread's extension contexts are stale; to the old thread's subscribers.",
    }),
    "thread/status/changed": notification({
      params: Type.Object({ threadId: Type.String({ description: "The thread's id." }), status: ThreadStatus }, Closed),
      doc: "A thread's status changed; to every connection.",
    }),
    "thread/archived": notification({
      params: Type.Object({ threadId: Type.String({ description: "The thread's id." }) }, Closed),
      doc: "A thread was archived; to every connection.",
    }),
    "thread/unarchived": notification({
      params: Type.Object({ threadId: Type.String({ description: "The thread's id." }) }, Closed),
      doc: "A thread was unarchived; to every connection.",
    }),
    "thread/deleted": notification({
      params: Type.Object({ threadId: Type.String({ description: "The thread's id." }) }, Closed),
      doc: "An archived thread was deleted; to every connection.",
    }),
    "thread/planMode/updated": notification({
      params: Type.Object(
        { threadId: Type.String({ description: "The thread's id." }), planMode: Type.Boolean({ description: "Whether plan mode is now on." }) },
        Closed,
      ),
      doc: "Plan mode turned on or off (settings, /plan, an approved plan); to subscribers.",
    }),
    "thread/name/updated": notification({
      params: Type.Object({ threadId: Type.String({ description: "The thread's id." }), name: Type.String({ description: "The new name." }) }, Closed),
      doc: "A thread was renamed; to every connection.",
    }),
    "thread/tokenUsage/updated": notification({
      params: Type.Object(
        {
          threadId: Type.String({ description: "The thread's id." }),
          turnId: Type.Optional(Type.String({ description: "The turn it concerns, when it concerns one." })),
          usage: TokenUsage,
        },
        Closed,
      ),
      doc: "After every finalized assistant reply (and compaction billing); to subscribers.",
    }),
    warning: notification({
      params: Type.Object({ threadId: Type.Optional(Type.String({ description: "The thread it concerns, when it concerns one." })), warning: Warning }, Closed),
      doc: "A problem that did not stop the work, such as an extension's failure; to subscribers.",
    }),
  },
} as const;

export { Item };
