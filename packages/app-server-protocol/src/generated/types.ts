// Generated from the protocol table by `npm run generate:schema` in packages/app-server-protocol; do not edit.
// Every shape the protocol carries, as plain interfaces and unions.

import type { ErrorCode } from "../errors.js";

export type { ErrorCode };

/** A request id: a string or a finite number, echoed unchanged in the response. */
export type RequestId = string | number;

export type ErrorObject = {
  code: ErrorCode;
  message: string;
  /** Structured details the spec names for this error. */
  data?: Record<string, unknown>;
};

/** apiKey and oauth: stored in <agentDir>/auth.json; env: a key found in the server's environment. */
export type AccountKind = "apiKey" | "oauth" | "env";

/** A provider with a usable credential; the credential itself is never sent. */
export type Account = {
  provider: string;
  kind: AccountKind;
};

export type TerminalProcess = {
  /** The process command/exec answered. */
  processId: string;
  /** The command line as given. */
  command: string;
  /** The absolute folder it runs in. */
  cwd: string;
  /** Whether it runs on a terminal. */
  tty: boolean;
  /** When it started, in Unix milliseconds. */
  startedAt: number;
};

export type EmptyObject = Record<string, never>;

export type CommandInfo = {
  /** Without the leading slash; a skill as skill:<name>. */
  name: string;
  description: string;
};

/** Something the user should see that did not stop the work. */
export type Warning = {
  message: string;
  source: "settings" | "extension" | "trust" | "server" | "models";
  path?: string;
  line?: number;
  column?: number;
};

/** A platform's own script replaces default there. */
export type EnvironmentScripts = {
  /** A shell script of at most 65,536 UTF-8 bytes. */
  default: string;
  /** A shell script of at most 65,536 UTF-8 bytes. */
  linux?: string;
  /** A shell script of at most 65,536 UTF-8 bytes. */
  darwin?: string;
  /** A shell script of at most 65,536 UTF-8 bytes. */
  win32?: string;
};

/** What a new worktree of the project runs: setup once it exists, cleanup before it is deleted. */
export type Environment = {
  /** Unique in the list. */
  name: string;
  setup: EnvironmentScripts;
  cleanup?: EnvironmentScripts;
};

export type FileMatch = {
  /** Relative to cwd, with `/` between segments and no leading `./`. */
  path: string;
  /** Higher is better; compare scores within one answer only. */
  score: number;
  /** The matched characters: 0-based UTF-16 positions in path, ascending. */
  indices: number[];
};

/** direct: each MCP tool is a tool of its own; proxy: one tool, mcp_<server>, calls the server's tools by name. */
export type McpExposure = "direct" | "proxy";

export type McpServer = {
  name: string;
  /** global: <agentDir>/mcp.json; project: <cwd>/.knightcode/mcp.json, which needs cwd and a trusted project. */
  scope: "global" | "project";
  /** The file that defines the server. */
  source: string;
  /** The trusted project's mcp.json whose entry of this name is in force instead. */
  override?: string;
  transport: "stdio" | "http";
  /** A stdio server's command line or an http server's URL, with URL credentials and query values masked; never env or header values. */
  target: string;
  description?: string;
  enabled: boolean;
  exposure: McpExposure;
};

/** How hard the model thinks; off for a model without reasoning. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

/** A model the server knows, with what it can do and what it costs. */
export type ModelSummary = {
  provider: string;
  id: string;
  name: string;
  reasoning: boolean;
  thinkingLevels: ThinkingLevel[];
  contextWindow: number;
  maxTokens: number;
  input: Array<"text" | "image">;
  /** Dollars per million tokens. */
  cost: {
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite: number;
  };
  /** A credential for the provider is present. */
  available: boolean;
  /** Why the model is not available; absent when it is. */
  unavailableReason?: {
    /** noCredentials: no key for the provider anywhere the server looks; authFileError: auth.json cannot be read. */
    kind: "noCredentials" | "authFileError";
    /** What to set or fix (an environment variable, auth.json, models.json); never a key. */
    message: string;
  };
  source: "builtin" | "custom" | "extension";
};

/** The plural settings name of the resource's kind. */
export type ResourceType = "extensions" | "skills" | "prompts" | "themes";

/** An extension, skill, prompt or theme the server found, with where it came from and whether it is on. */
export type ResourceInfo = {
  type: ResourceType;
  /** Absolute path of the file that loads: the module, the skill's SKILL.md, the template or the theme. */
  path: string;
  name: string;
  enabled: boolean;
  scope: "global" | "project";
  /** directory: the scope's own folder for the type; settings: a path in the scope's settings; package: a package the settings list. */
  origin: "directory" | "settings" | "package";
  /** The folder, settings file or package folder that brought it. */
  source: string;
  description?: string;
  /** Path of the resource of the same type and name that wins over this one. */
  shadowedBy?: string;
};

/** uncommitted: HEAD with the working tree; branch: the merge base with `against` (else as thread/diff/read's branch scope chooses) with the working tree; commit: `commit` with its first parent; lastTurn: the thread's last turn, or `turnId`. */
export type ReviewScope = "uncommitted" | "branch" | "commit" | "lastTurn";

/** Why a turn failed. */
export type TurnError = {
  /** At most 2,000 characters in summaries; full payloads keep it whole. */
  message: string;
  kind: "auth" | "rateLimit" | "contextOverflow" | "network" | "provider" | "other";
};

/** Lines added and deleted in one file. */
export type FileTotals = {
  path: string;
  additions: number;
  deletions: number;
};

export type ImageRef = {
  mimeType: string;
  /** Base64 bytes. */
  data?: string;
  path?: string;
};

export type ReviewComment = {
  /** Relative to the repository root. */
  path: string;
  side: "new" | "old";
  startLine: number;
  endLine: number;
  text: string;
  /** The commented lines as the reviewed hunk had them, each with its diff prefix, joined by newlines. */
  quote: string;
};

/** What the user sent (after extensions transformed it). */
export type UserMessageItem = {
  /** A durable ordinal within the turn, or a tool call's own id. */
  id: string;
  type: "userMessage";
  /** Top-level position in the turn; order by its latest value. */
  index?: number;
  /** The tool call a nested call belongs to; nested calls have no index. */
  parentItemId?: string;
  /** Unix milliseconds. */
  startedAt?: number;
  /** Unix milliseconds. */
  completedAt?: number;
  text: string;
  images?: ImageRef[];
  /** Review comments sent with the text; the model receives them after it. */
  comments?: ReviewComment[];
  clientMessageId?: string;
};

/** The model's answer text. */
export type AgentMessageItem = {
  /** A durable ordinal within the turn, or a tool call's own id. */
  id: string;
  type: "agentMessage";
  /** Top-level position in the turn; order by its latest value. */
  index?: number;
  /** The tool call a nested call belongs to; nested calls have no index. */
  parentItemId?: string;
  /** Unix milliseconds. */
  startedAt?: number;
  /** Unix milliseconds. */
  completedAt?: number;
  text: string;
};

/** The model's reasoning text. */
export type ReasoningItem = {
  /** A durable ordinal within the turn, or a tool call's own id. */
  id: string;
  type: "reasoning";
  /** Top-level position in the turn; order by its latest value. */
  index?: number;
  /** The tool call a nested call belongs to; nested calls have no index. */
  parentItemId?: string;
  /** Unix milliseconds. */
  startedAt?: number;
  /** Unix milliseconds. */
  completedAt?: number;
  text: string;
};

/** An immutable large value; read it with payload/read. */
export type PayloadRef = {
  id: string;
  bytes: number;
};

export type ToolCallStatus = "inProgress" | "completed" | "failed" | "declined";

export type FileChange = {
  path: string;
  kind: "add" | "modify" | "delete";
  /** A unified diff of the change. */
  diff?: string;
};

export type ViewText = {
  type: "text";
  text: string;
};

export type ViewButton = {
  type: "button";
  /** Unique among the view's controls. */
  id: string;
  label: string;
};

export type ViewToggle = {
  type: "toggle";
  /** Unique among the view's controls. */
  id: string;
  label: string;
  value: boolean;
};

export type ViewSelect = {
  type: "select";
  /** Unique among the view's controls. */
  id: string;
  options: string[];
  /** One of `options`. */
  value?: string;
  label?: string;
};

export type ViewTextField = {
  type: "textField";
  /** Unique among the view's controls. */
  id: string;
  value?: string;
  placeholder?: string;
  label?: string;
};

/** A view node below the deepest container: no container. */
export type ViewLeaf = ViewText | ViewButton | ViewToggle | ViewSelect | ViewTextField;

export type ViewBelow1 = ViewText | ViewButton | ViewToggle | ViewSelect | ViewTextField | {
  type: "stack";
  children: ViewLeaf[];
  direction?: "vertical" | "horizontal";
} | {
  type: "list";
  children: ViewLeaf[];
};

export type ViewBelow2 = ViewText | ViewButton | ViewToggle | ViewSelect | ViewTextField | {
  type: "stack";
  children: ViewBelow1[];
  direction?: "vertical" | "horizontal";
} | {
  type: "list";
  children: ViewBelow1[];
};

export type ViewBelow3 = ViewText | ViewButton | ViewToggle | ViewSelect | ViewTextField | {
  type: "stack";
  children: ViewBelow2[];
  direction?: "vertical" | "horizontal";
} | {
  type: "list";
  children: ViewBelow2[];
};

export type ViewBelow4 = ViewText | ViewButton | ViewToggle | ViewSelect | ViewTextField | {
  type: "stack";
  children: ViewBelow3[];
  direction?: "vertical" | "horizontal";
} | {
  type: "list";
  children: ViewBelow3[];
};

export type ViewBelow5 = ViewText | ViewButton | ViewToggle | ViewSelect | ViewTextField | {
  type: "stack";
  children: ViewBelow4[];
  direction?: "vertical" | "horizontal";
} | {
  type: "list";
  children: ViewBelow4[];
};

export type ViewBelow6 = ViewText | ViewButton | ViewToggle | ViewSelect | ViewTextField | {
  type: "stack";
  children: ViewBelow5[];
  direction?: "vertical" | "horizontal";
} | {
  type: "list";
  children: ViewBelow5[];
};

export type ViewBelow7 = ViewText | ViewButton | ViewToggle | ViewSelect | ViewTextField | {
  type: "stack";
  children: ViewBelow6[];
  direction?: "vertical" | "horizontal";
} | {
  type: "list";
  children: ViewBelow6[];
};

/** A declarative view: one node, containers (stack, list) nested at most 8 deep; see docs/declarative-views.md. */
export type View = ViewText | ViewButton | ViewToggle | ViewSelect | ViewTextField | {
  type: "stack";
  children: ViewBelow7[];
  direction?: "vertical" | "horizontal";
} | {
  type: "list";
  children: ViewBelow7[];
};

/** A sub-agent named by a call of the sub-agent tools. */
export type SubAgentRef = {
  /** The sub-agent's thread. */
  threadId: string;
  /** The name the model gave it. */
  name?: string;
  /** Where it stood when the call ended. */
  status: "running" | "completed" | "interrupted" | "failed" | "closed";
};

/** A tool call; its id is the call id. */
export type ToolCallItem = {
  /** A durable ordinal within the turn, or a tool call's own id. */
  id: string;
  type: "toolCall";
  /** Top-level position in the turn; order by its latest value. */
  index?: number;
  /** The tool call a nested call belongs to; nested calls have no index. */
  parentItemId?: string;
  /** Unix milliseconds. */
  startedAt?: number;
  /** Unix milliseconds. */
  completedAt?: number;
  name: string;
  input?: unknown;
  inputRef?: PayloadRef;
  output?: string;
  outputRef?: PayloadRef;
  status: ToolCallStatus;
  fileChanges?: FileChange[];
  view?: View;
  /** The sub-agents a sub-agent tool's call named (agent_start, agent_send, agent_wait, agent_close). */
  subagents?: SubAgentRef[];
};

/** Older history was summarized. */
export type CompactionItem = {
  /** A durable ordinal within the turn, or a tool call's own id. */
  id: string;
  type: "compaction";
  /** Top-level position in the turn; order by its latest value. */
  index?: number;
  /** The tool call a nested call belongs to; nested calls have no index. */
  parentItemId?: string;
  /** Unix milliseconds. */
  startedAt?: number;
  /** Unix milliseconds. */
  completedAt?: number;
  summary: string;
};

/** A message an extension added to the conversation. */
export type ExtensionMessageItem = {
  /** A durable ordinal within the turn, or a tool call's own id. */
  id: string;
  type: "extensionMessage";
  /** Top-level position in the turn; order by its latest value. */
  index?: number;
  /** The tool call a nested call belongs to; nested calls have no index. */
  parentItemId?: string;
  /** Unix milliseconds. */
  startedAt?: number;
  /** Unix milliseconds. */
  completedAt?: number;
  text: string;
  customType?: string;
  view?: View;
};

export type FindingSeverity = "critical" | "high" | "medium" | "low" | "info";

/** Beyond the spec: a problem the model reported in a review turn (review/start), on lines of a hunk of the reviewed diff; its id is the call's. Only review turns produce it. */
export type ReviewFindingItem = {
  /** A durable ordinal within the turn, or a tool call's own id. */
  id: string;
  type: "reviewFinding";
  /** Top-level position in the turn; order by its latest value. */
  index?: number;
  /** The tool call a nested call belongs to; nested calls have no index. */
  parentItemId?: string;
  /** Unix milliseconds. */
  startedAt?: number;
  /** Unix milliseconds. */
  completedAt?: number;
  /** The finding's id in its thread: review/finding/apply takes it. */
  findingId: string;
  /** Relative to the repository root. */
  path: string;
  /** The hunk of the reviewed diff the finding is on, at context 3. */
  hunkId: string;
  /** Line numbers are the new side's, always. */
  side: "new";
  startLine: number;
  endLine: number;
  severity: FindingSeverity;
  title: string;
  body: string;
  /** The text that should replace lines startLine..endLine; review/finding/apply writes it. */
  suggestion?: string;
  /** Lines startLine..endLine as the review read them, each without its newline: what a suggestion replaces. Within one hunk of the diff shown. */
  lines?: string[];
};

/** An item of a turn; its type says which. */
export type Item = UserMessageItem | AgentMessageItem | ReasoningItem | ToolCallItem | CompactionItem | ExtensionMessageItem | ReviewFindingItem;

/** An item too large to send inline; payload/read returns it as JSON. */
export type ItemReference = {
  id: string;
  /** The referenced item's type. */
  type: "userMessage" | "agentMessage" | "reasoning" | "toolCall" | "compaction" | "extensionMessage" | "reviewFinding";
  index?: number;
  payloadRef: PayloadRef;
};

/** An item inline, or a reference to it when it is too large to send inline. */
export type HistoryItem = Item | ItemReference;

/** One user message and everything the agent did for it. */
export type Turn = {
  id: string;
  status: "inProgress" | "completed" | "failed" | "interrupted";
  /** Unix milliseconds. */
  startedAt: number;
  /** Unix milliseconds. */
  completedAt?: number;
  error?: TurnError;
  files?: FileTotals[];
  /** Only in history, never in turn notifications. */
  items?: HistoryItem[];
  payloadRef?: PayloadRef;
};

/** Which changes: uncommitted (staged and not), unstaged, staged, committed on the branch, the whole branch against its base, or the last turn's. */
export type DiffScope = "uncommitted" | "unstaged" | "staged" | "committed" | "branch" | "lastTurn";

export type DiffHunk = {
  /** A content hash of the file's header and this hunk at the read's context: `c<context>-...`, or `w<context>-...` from a whitespace-blind read (it matches no action). */
  id: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** Each line with its " ", "+", "-" or "\" prefix and without its newline (a CR stays). */
  lines: string[];
};

/** One changed file with its hunks. */
export type DiffFile = {
  /** Relative to the repository root. */
  path: string;
  /** A renamed file's old path. */
  oldPath?: string;
  /** An untracked file is added; a mode-only change is modified with 0 additions and 0 deletions. */
  status: "added" | "modified" | "deleted" | "renamed";
  /** Binary files have no hunks. */
  binary: boolean;
  additions: number;
  deletions: number;
  /** Past the response budget: the counts stay, the hunks are left out. */
  tooLarge?: boolean;
  hunks: DiffHunk[];
};

/** Whether the thread is loaded and what a running thread waits on. */
export type ThreadStatus = {
  type: "notLoaded";
} | {
  type: "idle";
} | {
  type: "active";
  waitingOn: Array<"approval" | "dialog">;
} | {
  type: "systemError";
  message: string;
};

/** local: the user's checkout; worktree: a managed git worktree of the thread's own. */
export type WorkspaceMode = "local" | "worktree";

/** Where the thread runs. */
export type Workspace = {
  mode: WorkspaceMode;
  /** The worktree's folder (worktree mode); the thread's cwd is inside it. */
  path?: string;
  /** The full id of the commit the worktree was made from. */
  baseRef?: string;
  /** The branch the thread works on, once it has one. */
  branch?: string;
};

/** A model by provider and id, as model/list shows them. */
export type ModelRef = {
  provider: string;
  id: string;
};

/** ask: tool calls that change things wait for approval; autoEdit: file edits run without asking; fullAccess: nothing asks. */
export type ApprovalMode = "ask" | "autoEdit" | "fullAccess";

/** A loaded thread: where it runs, its model and its settings. */
export type Thread = {
  id: string;
  name: string;
  /** The folder the thread runs in: inside its worktree for a worktree thread. */
  cwd: string;
  /** ISO 8601 time. */
  createdAt: string;
  /** ISO 8601 time. */
  updatedAt: string;
  /** The parent's header id. */
  forkedFromId?: string;
  /** Only on a sub-agent: the thread whose model started it. */
  parentThreadId?: string;
  /** Only on a sub-agent: the id of the parent's tool call that started it. */
  parentCallId?: string;
  /** The session file's path, once saved. */
  sessionFile?: string;
  status: ThreadStatus;
  workspace: Workspace;
  /** Null until a usable model is chosen. */
  model: ModelRef | null;
  thinkingLevel: ThinkingLevel;
  approvalMode: ApprovalMode;
  /** Only read-only tools and submit_plan run until the user approves a plan. */
  planMode: boolean;
};

/** The thread's extension UI as it stands when the response is written. */
export type ThreadUi = {
  statuses: Array<{
    key: string;
    text: string;
  }>;
  title?: string;
  workingMessage?: string;
  workingVisible: boolean;
  widgets: Array<{
    key: string;
    placement: "aboveEditor" | "belowEditor";
    lines?: string[];
    view?: View;
  }>;
};

/** A thread as lists and history show it, loaded or not. */
export type ThreadSummary = {
  id: string;
  /** The thread's name, or the first line of its first message; at most 120 characters. */
  title: string;
  /** Present when a name was set. */
  name?: string;
  /** The project the thread belongs to: the folder it was started from, also for a worktree thread. */
  cwd: string;
  /** ISO 8601 time. */
  createdAt: string;
  /** ISO 8601 time. */
  updatedAt: string;
  forkedFromId?: string;
  /** Only on a sub-agent: the thread whose model started it. */
  parentThreadId?: string;
  /** Only on a sub-agent: the id of the parent's tool call that started it. */
  parentCallId?: string;
  workspaceMode: WorkspaceMode;
  workspace: Workspace;
  archived: boolean;
  status: ThreadStatus;
  sessionFile: string;
};

/** Messages waiting for the running turn: steering goes in at the next step, followUp starts turns after it. */
export type QueueSnapshot = {
  /** Texts the running turn takes at its next step. */
  steering: string[];
  /** Inputs that start turns of their own, oldest first. */
  followUp: Array<{
    /** The queueId. */
    id: string;
    /** The queued text. */
    text: string;
    /** How many images go with it. */
    attachments?: number;
  }>;
};

/** The thread's token counts and cost so far, and how full its context is. */
export type TokenUsage = {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Dollars, cumulative. */
  cost: number;
  /** Absent when the current context is unknown. */
  contextTokens?: number;
  contextWindow: number;
  /** Only for a thread whose model started sub-agents: theirs, summed (the figures above are the thread's own). */
  subagents?: {
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite: number;
    /** Dollars, cumulative. */
    cost: number;
  };
  /** Only with subagents: the thread's own and its sub-agents', summed. */
  total?: {
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite: number;
    /** Dollars, cumulative. */
    cost: number;
  };
};

export type RewoundFile = {
  /** Relative to the repository root, with `/` separators. */
  path: string;
  /** What the rewind did to it: added (it came back), modified (its content or mode went back), deleted (the turns had created it). */
  status: "added" | "modified" | "deleted";
};

/** Where a tool comes from: `builtin` is KnightCode's own (read, bash, ask_user, websearch, ...), `extension` an extension's (also one that replaces a built-in by name), `mcp` an MCP server's. tool/list starts no MCP server, so it lists none. */
export type ToolSource = "builtin" | "extension" | "mcp";

export type ToolInfo = {
  name: string;
  /** What the model is told the tool does. */
  description: string;
  source: ToolSource;
};

export type ToolSettingsEntry = {
  /** `websearch`, or `classifiers.gate` for the classifier gate. */
  name: string;
  /** What tools.json sets, else the default (off for both). */
  enabled: boolean;
  /** The entry's settings as text. The value of a key ending in `Key` is masked: `••••` and its last four characters, or `••••` alone for a secret of four characters or fewer. */
  settings: Record<string, string>;
};

/** A model whose provider has credentials: one the classifier gate's `model` can name, as `<provider>/<id>`. */
export type ClassifierModel = {
  provider: string;
  id: string;
  name: string;
};

/** An image sent with a message: its bytes inline or a file path. */
export type ImageInput = {
  mimeType: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
  /** Base64, at most 20 MiB decoded. */
  data: string;
} | {
  /** Absolute path to a PNG, JPEG, GIF or WebP file of at most 20 MiB. */
  path: string;
};

export type ReviewCommentInput = {
  /** Relative to the repository root, with `/` separators; taken literally. */
  path: string;
  /** A hunk's id from a read of the same scope and context. */
  hunkId: string;
  /** Which side's line numbers startLine and endLine are; new by default. */
  side?: "new" | "old";
  startLine: number;
  endLine: number;
  /** At most 8 KiB of UTF-8. */
  text: string;
};

/** A git worktree the server made for a thread. */
export type ManagedWorktree = {
  /** The worktree's folder: <worktrees.root>/<4 hex>/<repository folder name>. */
  path: string;
  /** The project folder its threads belong to. */
  projectCwd: string;
  /** Its HEAD commit; for a deleted worktree, the HEAD its snapshot holds. */
  head?: string;
  /** The branch checked out there, when it is not detached. */
  branch?: string;
  /** Every thread that ran there, oldest first. */
  threadIds: string[];
  /** ISO 8601 time. */
  lastUsedAt: string;
  /** Deleted after a snapshot: thread/worktree/restore rebuilds it. */
  deleted: boolean;
};

/** The user's answer: run once, run for the session, run this prefix for the session, run with the network and let the thread's sandboxed commands use it until the thread unloads (offered only when a sandboxed command asks for the network), do not run, or stop the turn. */
export type ApprovalDecision = "accept" | "acceptForSession" | "acceptPrefixForSession" | "acceptNetworkForSession" | "decline" | "cancel";

export type UserQuestion = {
  id: string;
  text: string;
  options: Array<{
    /** Ends with " (Recommended)" for the recommended option. */
    label: string;
    description?: string;
  }>;
};

export type UserAnswer = {
  /** The chosen option's exact label. */
  label: string;
  note?: string;
} | {
  /** The user's own answer. */
  other: string;
};

/** Pick one of the options. */
export type SelectDialog = {
  /** The thread's id. */
  threadId: string;
  /** The running turn, when the dialog belongs to one. */
  turnId?: string;
  /** One line, at most 200 code points. */
  title: string;
  /** Which dialog: select, confirm, input or editor. */
  kind: "select";
  /** The choices; the answer's value is one of them. */
  options: string[];
};

/** Yes or no. */
export type ConfirmDialog = {
  /** The thread's id. */
  threadId: string;
  /** The running turn, when the dialog belongs to one. */
  turnId?: string;
  /** One line, at most 200 code points. */
  title: string;
  /** Which dialog: select, confirm, input or editor. */
  kind: "confirm";
  /** The question to confirm. */
  message: string;
};

/** One line of text. */
export type InputDialog = {
  /** The thread's id. */
  threadId: string;
  /** The running turn, when the dialog belongs to one. */
  turnId?: string;
  /** One line, at most 200 code points. */
  title: string;
  /** Which dialog: select, confirm, input or editor. */
  kind: "input";
  /** Hint text for the empty field. */
  placeholder?: string;
};

/** Multi-line text. */
export type EditorDialog = {
  /** The thread's id. */
  threadId: string;
  /** The running turn, when the dialog belongs to one. */
  turnId?: string;
  /** One line, at most 200 code points. */
  title: string;
  /** Which dialog: select, confirm, input or editor. */
  kind: "editor";
  /** The editor's starting text. */
  prefill?: string;
};

/** A dialog; kind says which. */
export type DialogParams = SelectDialog | ConfirmDialog | InputDialog | EditorDialog;

/** How an OAuth login that answered a loginId ended. */
export type LoginOutcome = {
  /** The loginId account/login/start answered. */
  loginId: string;
  /** The provider the login was for. */
  provider: string;
  outcome: "completed" | "failed" | "cancelled";
  /** Why a login failed, in the server's own words; never a provider's reply. */
  message?: string;
};

// ClientRequests

/** Params of `account/login/cancel`: Stops a pending OAuth login: its local callback server is closed and nothing is saved. Answers once the login has stopped. */
export type AccountLoginCancelParams = {
  /** The loginId account/login/start answered. */
  loginId: string;
};

/** Result of `account/login/cancel`. */
export type AccountLoginCancelResult = {
  /** False: unknown or already ended. */
  cancelled: boolean;
};

/** Params of `account/login/start`: With apiKey, stores the key for the provider (one model/list knows) in the agent dir's auth.json. Without it, starts the provider's OAuth login and answers as soon as its URL is known; a login already pending for the provider is cancelled first. An unknown provider, or one without OAuth login when apiKey is absent, is invalidParams; a corrupt auth.json is internal and left as it was. */
export type AccountLoginStartParams = {
  /** A provider name as model/list shows it, such as openai or anthropic. */
  provider: string;
  /** Stored at once. Visible ASCII only: no whitespace, line breaks or control characters. Without it, the provider's OAuth login starts. */
  apiKey?: string;
};

/** Result of `account/login/start`. */
export type AccountLoginStartResult = {
  /** apiKey: the key was stored; oauth: a browser login started. */
  kind: "apiKey";
} | {
  kind: "oauth";
  /** Names the login for account/login/cancel and in account/updated's login. */
  loginId: string;
  /** The page for the user to open in a browser. */
  url: string;
  /** What to do on that page, for a device-code login (the code to enter). */
  instructions?: string;
};

/** Params of `account/logout`: Removes the provider's stored credential from auth.json. A provider the server does not know and auth.json does not hold is invalidParams. */
export type AccountLogoutParams = {
  /** A provider name as model/list shows it, such as openai or anthropic. */
  provider: string;
};

/** Result of `account/logout`. */
export type AccountLogoutResult = {
  /** False: auth.json held nothing for the provider (a key in the environment stays). */
  removed: boolean;
};

/** Params of `account/read`: The providers that have a credential: stored API keys and OAuth logins, and keys in the server's environment. Never a secret. A corrupt auth.json is internal. */
export type AccountReadParams = Record<string, never>;

/** Result of `account/read`. */
export type AccountReadResult = {
  /** One per provider, sorted by provider: the credential in effect (a stored one wins over the environment). */
  accounts: Account[];
};

/** Params of `command/exec`: Beyond the spec; see docs/terminals.md. Runs a command for the client (not the model) in the thread's folder, through the thread's sandbox as the bash tool's commands run, without approval; answers at once. Its output comes as command/exec/outputDelta and its end as command/exec/exited, to the thread's subscribers (the caller subscribes). invalidParams past terminals.maxPerThread, for a cwd outside the thread's folder, or cols/rows without tty; toolMissing (data.tool "node-pty") for tty where terminals cannot be made here, or (data.tool "sandbox") when the sandbox is required and cannot run. */
export type CommandExecParams = {
  /** The thread whose folder the command runs in, and which owns its processes. */
  threadId: string;
  /** A shell line, run with bash -c as the bash tool runs one. */
  command: string;
  /** Run it on a new pseudo-terminal (stdin, stdout and stderr all on it); false by default. */
  tty?: boolean;
  /** With tty: the terminal's width; 80 by default. */
  cols?: number;
  /** With tty: the terminal's height; 24 by default. */
  rows?: number;
  /** A folder relative to the thread's folder (the thread's folder by default); one outside it, links resolved, is invalidParams. */
  cwd?: string;
};

/** Result of `command/exec`. */
export type CommandExecResult = {
  /** The process command/exec answered. */
  processId: string;
};

/** Params of `command/exec/list`: Beyond the spec; see docs/terminals.md. The thread's commands still running, for a client that reconnects. */
export type CommandExecListParams = {
  /** The thread whose folder the command runs in, and which owns its processes. */
  threadId: string;
};

/** Result of `command/exec/list`. */
export type CommandExecListResult = {
  /** Oldest first. */
  processes: TerminalProcess[];
};

/** Params of `command/exec/resize`: Beyond the spec; see docs/terminals.md. Resizes a running command's terminal (its programs get SIGWINCH). A command without a terminal, or an unknown or finished process, is invalidParams. */
export type CommandExecResizeParams = {
  /** The thread whose folder the command runs in, and which owns its processes. */
  threadId: string;
  /** The process command/exec answered. */
  processId: string;
  /** The terminal's width in columns. */
  cols: number;
  /** The terminal's height in rows. */
  rows: number;
};

/** Result of `command/exec/resize`. */
export type CommandExecResizeResult = EmptyObject;

/** Params of `command/exec/terminate`: Beyond the spec; see docs/terminals.md. Stops a running command and every process it started (SIGTERM, SIGKILL a second later); command/exec/exited follows. An unknown or finished process is invalidParams. */
export type CommandExecTerminateParams = {
  /** The thread whose folder the command runs in, and which owns its processes. */
  threadId: string;
  /** The process command/exec answered. */
  processId: string;
};

/** Result of `command/exec/terminate`. */
export type CommandExecTerminateResult = EmptyObject;

/** Params of `command/exec/write`: Beyond the spec; see docs/terminals.md. Writes to a running command's input. An unknown or finished process, or a stdin already closed, is invalidParams. */
export type CommandExecWriteParams = {
  /** The thread whose folder the command runs in, and which owns its processes. */
  threadId: string;
  /** The process command/exec answered. */
  processId: string;
  /** Bytes for its stdin (or the terminal's input), base64; may be empty. */
  data: string;
  /** After data, close its stdin (on a terminal: type the end-of-file character, ^D, as a user would). */
  closeStdin?: boolean;
};

/** Result of `command/exec/write`. */
export type CommandExecWriteResult = EmptyObject;

/** Params of `command/list`: The slash commands a thread offers: the built-in ones that work on desktop, extension commands, prompt templates and skills. A saved thread that is not loaded, or a cwd, is listed from a session built in memory: no extension starts and nothing is written. */
export type CommandListParams = {
  /** A thread's commands; give this or cwd. */
  threadId?: string;
  /** An existing directory: what a new thread there would offer. Give this or threadId. */
  cwd?: string;
};

/** Result of `command/list`. */
export type CommandListResult = {
  /** Sorted by name. */
  commands: CommandInfo[];
};

/** Params of `config/read`: Reads global settings and, with cwd, a trusted project's merged over them; settings, origins, versions and errors come from the same read of each file. */
export type ConfigReadParams = {
  /** An absolute path to an existing directory. */
  cwd?: string;
};

/** Result of `config/read`. */
export type ConfigReadResult = {
  /** What the files set, merged (a trusted project's over global); unset keys are absent. */
  settings: Record<string, unknown>;
  /** What each unset known setting means, in the shape of settings. */
  defaults: Record<string, unknown>;
  /** Dotted leaf key -> the scope its value came from. */
  origins: Record<string, "global" | "project">;
  /** Each file's version as read, for config/write's expected versions. */
  versions: {
    /** Lowercase hex SHA-256 of the file's raw bytes; "none" for an absent file or an unread untrusted scope. */
    global: string;
    /** Lowercase hex SHA-256 of the file's raw bytes; "none" for an absent file or an unread untrusted scope. */
    project?: string;
  };
  /** Where the settings files are. */
  paths: {
    /** The global settings file. */
    global: string;
    /** Named with cwd, even when the project is untrusted and the file unread. */
    project?: string;
  };
  /** Files that do not parse and settings of the wrong type, as source "settings" warnings. */
  errors: Warning[];
};

/** Params of `config/write`: Sets or deletes one key in one scope's settings file under the file's lock; configConflict (data.version) when expectedVersion no longer matches. */
export type ConfigWriteParams = {
  /** global or project; anything else is invalidParams naming the key. */
  scope: string;
  /** A dotted key such as retry.provider.maxRetries. */
  key: string;
  /** Required: the new JSON value, or null to delete the key. Missing is invalidParams naming the key. */
  value?: unknown;
  /** An absolute path to an existing directory. */
  cwd?: string;
  /** Lowercase hex SHA-256 of the file's raw bytes; "none" for an absent file or an unread untrusted scope. */
  expectedVersion?: string;
};

/** Result of `config/write`. */
export type ConfigWriteResult = {
  /** Lowercase hex SHA-256 of the file's raw bytes; "none" for an absent file or an unread untrusted scope. */
  version: string;
};

/** Params of `directory/list`: Beyond the spec: the subfolders of a folder on the server's machine, for a client completing a project path. Names only: no files, no contents. A relative path, one that does not exist, one that is no folder, or one the server may not read is invalidParams, its message saying which. */
export type DirectoryListParams = {
  /** An absolute path, or `~` / `~/…` for the server's home folder: the folder whose subfolders to list. */
  path: string;
  /** Most subfolders to answer; 200 by default. */
  limit?: number;
};

/** Result of `directory/list`. */
export type DirectoryListResult = {
  /** The folder listed: absolute, with `~` expanded and `.`/`..` resolved. */
  path: string;
  /** Sorted by name; hidden ones (a leading dot) left out; a symbolic link to a folder included. */
  directories: Array<{
    /** The subfolder's name, as the file system has it. */
    name: string;
    /** Its absolute path. */
    path: string;
  }>;
  /** More subfolders were there than limit: the answer holds the first limit in the order they were read, sorted. */
  truncated: boolean;
};

/** Params of `environment/list`: Reads the project's .knightcode/environments.json; no file is an empty list. */
export type EnvironmentListParams = {
  /** An absolute path to an existing directory. */
  cwd: string;
};

/** Result of `environment/list`. */
export type EnvironmentListResult = {
  /** At most 50, names unique. */
  environments: Environment[];
  /** project/trust/read's trusted; an untrusted project's scripts never run. */
  trusted: boolean | null;
};

/** Params of `environment/save`: Replaces the whole list in a trusted project's .knightcode/environments.json, under the same file lock as settings. */
export type EnvironmentSaveParams = {
  /** An absolute path to an existing directory. */
  cwd: string;
  /** At most 50, names unique. */
  environments: Environment[];
};

/** Result of `environment/save`. */
export type EnvironmentSaveResult = EmptyObject;

/** Params of `file/search`: Fuzzy file search in a folder, over the files fd lists there (.gitignore honoured inside a repository, .git left out, hidden files included, symbolic links not followed). Listings are cached for ten seconds. A superseded search answers `{files: [], truncated: false}`; `toolMissing` when neither fd nor fdfind is on the server's PATH. */
export type FileSearchParams = {
  /** An existing directory, absolute: the folder to search. */
  cwd: string;
  /** Matched fuzzily, ignoring case; whitespace separates terms that must all match. */
  query: string;
  /** Most files to answer; 50 by default. */
  limit?: number;
  /** A later search with the same id, from any connection, answers this one at once with no files. */
  searchId?: string;
};

/** Result of `file/search`. */
export type FileSearchResult = {
  /** Best first: by descending score. */
  files: FileMatch[];
  /** The listing stopped at its cap (200,000 paths or 32 MiB), so some files were not searched; never about limit. */
  truncated: boolean;
};

/** Params of `git/branch/create`: Acts on the thread's own checkout (the repository around its folder). "Create branch here": a new branch at HEAD, checked out, the files and the index untouched. An invalid name is invalidParams; an existing one gitConflict branchExists. Refused while a turn runs in the checkout. */
export type GitBranchCreateParams = {
  /** The thread's id. */
  threadId: string;
  /** A local branch's short name, such as feature/login. */
  name: string;
};

/** Result of `git/branch/create`. */
export type GitBranchCreateResult = {
  /** A local branch's short name, such as feature/login. */
  branch: string;
  /** null: the branch has no commit yet. */
  head: string | null;
};

/** Params of `git/branch/switch`: Acts on the thread's own checkout (the repository around its folder). Checks out a local branch, local changes carried along. Refused with gitConflict localChanges (data.paths) when it would overwrite a local change, or a file the index does not track (ignored ones too), and operationInProgress during a merge, rebase and the like. An unknown branch is invalidParams. Refused while a turn runs in the checkout. */
export type GitBranchSwitchParams = {
  /** The thread's id. */
  threadId: string;
  /** A local branch's short name, such as feature/login. */
  name: string;
};

/** Result of `git/branch/switch`. */
export type GitBranchSwitchResult = {
  /** A local branch's short name, such as feature/login. */
  branch: string;
  /** A full commit id. */
  head: string;
};

/** Params of `git/branches`: Acts on the thread's own checkout (the repository around its folder). The local branches. */
export type GitBranchesParams = {
  /** The thread's id. */
  threadId: string;
};

/** Result of `git/branches`. */
export type GitBranchesResult = {
  /** The branch HEAD is on; null when detached. */
  current: string | null;
  /** The local branches, the most recently committed to first. */
  branches: Array<{
    /** A local branch's short name, such as feature/login. */
    name: string;
    /** A full commit id. */
    head: string;
    /** Its upstream as <remote>/<branch>. */
    upstream?: string;
    /** HEAD is on it. */
    current: boolean;
  }>;
};

/** Params of `git/commit`: Acts on the thread's own checkout (the repository around its folder). Commits, the user's hooks running. Nothing to commit is invalidParams; unresolved conflicts are gitConflict localChanges; HEAD or the change moving while the model wrote the message is gitConflict concurrentChange; a hook or git refusing is internal with data.output. The message request is in no transcript and no usage. */
export type GitCommitParams = {
  /** The thread's id. */
  threadId: string;
  /** Empty or absent: the thread's model writes it from the change. */
  message?: string;
  /** Stage every change (untracked files included, ignored ones not) first; true by default. */
  includeUnstaged?: boolean;
};

/** Result of `git/commit`. */
export type GitCommitResult = {
  /** A full commit id. */
  sha: string;
  /** The message as recorded (a commit-msg hook may have changed it). */
  message: string;
  /** The thread's model wrote the message. */
  generated: boolean;
};

/** Params of `git/commit/message`: Acts on the thread's own checkout (the repository around its folder). Beyond the spec: the message git/commit without one would have the thread's model write, answered instead of committed, so a client can show it for editing first. Reads only: nothing is staged or committed, the index is not written. Nothing to commit is invalidParams; unresolved conflicts are gitConflict localChanges; no usable model is invalidParams (data.reason) or authRequired, as for git/commit; the model failing is internal. The request is in no transcript and no usage. */
export type GitCommitMessageParams = {
  /** The thread's id. */
  threadId: string;
  /** Write it for every change (untracked files included, ignored ones not), as git/commit would stage them; true by default. */
  includeUnstaged?: boolean;
};

/** Result of `git/commit/message`. */
export type GitCommitMessageResult = {
  /** The message the thread's model wrote, for the user to read and edit. */
  message: string;
};

/** Params of `git/log`: Acts on the thread's own checkout (the repository around its folder). The commits since the base (for the committed scope): the merge base with the upstream, else with the default branch (origin's HEAD, main, master) when HEAD is not on it; without a base, the last commits. */
export type GitLogParams = {
  /** The thread's id. */
  threadId: string;
  /** 50 by default. */
  limit?: number;
};

/** Result of `git/log`. */
export type GitLogResult = {
  /** Newest first. */
  commits: Array<{
    /** A full commit id. */
    sha: string;
    /** The first line of the commit message. */
    subject: string;
    /** The author's name. */
    author: string;
    /** The author's time, ISO 8601 in UTC. */
    time: string;
  }>;
  /** Where the branch left its base; absent when none was found. */
  base?: {
    /** A full commit id. */
    sha: string;
    /** What the base was found from: the upstream's or the default branch's name. */
    from: string;
  };
  /** More commits since the base than limit. */
  truncated: boolean;
};

/** Params of `git/pr/create`: Acts on the thread's own checkout (the repository around its folder). Opens a pull request for the current (pushed) branch with gh pr create. No gh on PATH is toolMissing; gh not signed in is authRequired; gh refusing is internal with data.output. */
export type GitPrCreateParams = {
  /** The thread's id. */
  threadId: string;
  /** Absent: title and body come from the commits (gh's --fill). */
  title?: string;
  /** The pull request's description, in Markdown. */
  body?: string;
  /** Opens it as a draft. */
  draft?: boolean;
  /** The branch to merge into; the repository's default by default. */
  base?: string;
};

/** Result of `git/pr/create`. */
export type GitPrCreateResult = {
  /** The pull request's page. */
  url: string;
};

/** Params of `git/push`: Acts on the thread's own checkout (the repository around its folder). Pushes the current branch with one explicit refspec that never forces, to its upstream's branch (or one of its own name), setting the upstream the first time. A remote that is a folder on this machine (a path or file:// URL) is pushed to only after the user confirms a ui/dialog, and none of that repository's hooks run; no yes is invalidParams notConfirmed. A detached HEAD or an unknown remote is invalidParams; a refusal is gitConflict pushRejected with data.output. */
export type GitPushParams = {
  /** The thread's id. */
  threadId: string;
  /** A configured remote; by default the upstream's, else origin. */
  remote?: string;
};

/** Result of `git/push`. */
export type GitPushResult = {
  /** The remote pushed to. */
  remote: string;
  /** A local branch's short name, such as feature/login. */
  branch: string;
  /** The branch it went to, as <remote>/<branch>. */
  pushedTo: string;
  /** The branch had no upstream; this push made it one. */
  upstreamSet: boolean;
};

/** Params of `git/stage`: Stages everything (no path), one path, or one hunk of an unstaged read. A hunk id that matches nothing answers gitConflict diffChanged. */
export type GitStageParams = {
  /** The thread's id. */
  threadId: string;
  /** Relative to the repository root, with `/` separators; taken literally. */
  path?: string;
  /** A hunk's id from a read of the same scope and context. */
  hunkId?: string;
  /** Lines of context around each change; 3 by default. Ids from a context-0 read match no action. */
  context?: number;
};

/** Result of `git/stage`. */
export type GitStageResult = {
  /** The files the action changed, relative to the repository root (a rename's both paths). */
  paths: string[];
};

/** Params of `git/status`: Acts on the thread's own checkout (the repository around its folder). The branch, its upstream and how far apart they are, counts of staged, unstaged, untracked and conflicted files, and an operation in progress. Never writes the index. */
export type GitStatusParams = {
  /** The thread's id. */
  threadId: string;
};

/** Result of `git/status`. */
export type GitStatusResult = {
  /** The branch HEAD is on; null when HEAD is detached. */
  branch: string | null;
  /** The branch's upstream as <remote>/<branch>, such as origin/main; null without one. */
  upstream: string | null;
  /** Commits on HEAD the upstream lacks; 0 without an upstream. */
  ahead: number;
  /** Commits on the upstream HEAD lacks; 0 without an upstream. */
  behind: number;
  /** Files with staged changes. */
  staged: number;
  /** Tracked files with changes not staged (a file may count here and in staged). */
  unstaged: number;
  /** Untracked files, each file counted; ignored files are not. */
  untracked: number;
  /** Files with unresolved conflicts. */
  conflicted: number;
  /** A merge, rebase or the like in progress; null when none is. */
  operation: "merge" | "rebase" | "cherryPick" | "revert" | "bisect" | null;
};

/** Params of `git/unstage`: Unstages everything (no path), one path, or one hunk of a staged read. A hunk id that matches nothing answers gitConflict diffChanged. */
export type GitUnstageParams = {
  /** The thread's id. */
  threadId: string;
  /** Relative to the repository root, with `/` separators; taken literally. */
  path?: string;
  /** A hunk's id from a read of the same scope and context. */
  hunkId?: string;
  /** Lines of context around each change; 3 by default. Ids from a context-0 read match no action. */
  context?: number;
};

/** Result of `git/unstage`. */
export type GitUnstageResult = {
  /** The files the action changed, relative to the repository root (a rename's both paths). */
  paths: string[];
};

/** Params of `initialize`: Opens the connection: answers serverInfo and platform. Send `initialized` after its result. */
export type InitializeParams = {
  /** Who is connecting. */
  clientInfo: {
    /** The client's name, for logs and diagnostics. */
    name: string;
    /** The client's version. */
    version?: string;
    /** A display name for the client. */
    title?: string;
  };
  /** What this connection wants or supports. */
  capabilities?: {
    /** Notification methods this connection does not want. Unknown names are tolerated. */
    optOutNotifications?: string[];
    /** Requests to this connection (approvals, requestUserInput, ui/dialog, plan review) outlive it: when it was the last subscriber to leave, a request waits up to the global setting requests.holdSeconds for the thread's next subscriber instead of being cancelled at once. */
    holdRequests?: boolean;
    /** Number every notification about a thread with seq, so that thread/resume's afterSeq can replay what this client missed. */
    sequenced?: boolean;
    /** A subscriber of a thread also gets the notifications of the sub-agents its model started, each with the sub-agent's threadId and parentThreadId, without subscribing to them. */
    subagents?: boolean;
  };
};

/** Result of `initialize`. */
export type InitializeResult = {
  /** Which server answered. */
  serverInfo: {
    /** The server's name. */
    name: string;
    /** The server's version. */
    version: string;
  };
  /** Where the server runs, so a client can show paths and shortcuts that fit. */
  platform: {
    /** The operating system the server runs on. */
    os: "linux" | "darwin" | "win32";
    /** The CPU architecture, as Node names it (x64, arm64). */
    arch: string;
    /** The home directory of the user the server runs as. */
    homeDir: string;
  };
};

/** Params of `mcp/add`: Adds or replaces a server entry after checking it. auth is refused in a project file; a project write needs cwd and a trusted project (invalidParams with data.reason untrusted). */
export type McpAddParams = {
  /** global: <agentDir>/mcp.json; project: <cwd>/.knightcode/mcp.json, which needs cwd and a trusted project. */
  scope: "global" | "project";
  /** An existing directory: its project's .knightcode/mcp.json counts when the project is trusted. */
  cwd?: string;
  /** 1 to 32 letters, digits, _ or -, starting with a letter or digit. */
  name: string;
  /** An mcpServers entry: {command, args?, env?, cwd?} or {url, headers?, auth?}, with enabled?, exposure?, description?. */
  config: unknown;
};

/** Result of `mcp/add`. */
export type McpAddResult = {
  /** An entry of that name was there and is replaced. */
  replaced: boolean;
};

/** Params of `mcp/list`: The MCP servers a thread in cwd (or with no project) would connect: the global mcp.json and a trusted project's, which overrides. Starts no server. */
export type McpListParams = {
  /** An existing directory: its project's .knightcode/mcp.json counts when the project is trusted. */
  cwd?: string;
};

/** Result of `mcp/list`. */
export type McpListResult = {
  /** Sorted by name. */
  servers: McpServer[];
  /** Unreadable files and skipped entries. */
  errors: Warning[];
  /** Where the mcp.json files are. */
  paths: {
    /** The global mcp.json. */
    global: string;
    /** Named whenever cwd is given, trusted or not. */
    project?: string;
  };
};

/** Params of `mcp/remove`: Removes a server entry from one file; removed is false when it had none of that name. */
export type McpRemoveParams = {
  /** global: <agentDir>/mcp.json; project: <cwd>/.knightcode/mcp.json, which needs cwd and a trusted project. */
  scope: "global" | "project";
  /** An existing directory: its project's .knightcode/mcp.json counts when the project is trusted. */
  cwd?: string;
  /** 1 to 32 letters, digits, _ or -, starting with a letter or digit. */
  name: string;
};

/** Result of `mcp/remove`. */
export type McpRemoveResult = {
  /** False: the file held no server of that name. */
  removed: boolean;
};

/** Params of `mcp/update`: Changes a listed server's enabled or exposure: in the trusted project's file when it overrides the server, else in the file that defines it. An unknown name is invalidParams. */
export type McpUpdateParams = {
  /** An existing directory: its project's .knightcode/mcp.json counts when the project is trusted. */
  cwd?: string;
  /** 1 to 32 letters, digits, _ or -, starting with a letter or digit. */
  name: string;
  /** False keeps the server configured but does not start it. */
  enabled?: boolean;
  exposure?: McpExposure;
};

/** Result of `mcp/update`. */
export type McpUpdateResult = Record<string, never>;

/** Params of `model/list`: Every model the server knows, with thinking levels, context window, prices and whether credentials are present; an unavailable one says why in unavailableReason. available and provider narrow the list; without them it is whole. See docs/models.md. */
export type ModelListParams = {
  /** Only the models whose `available` is this. */
  available?: boolean;
  /** Only this provider's models. */
  provider?: string;
};

/** Result of `model/list`. */
export type ModelListResult = {
  models: ModelSummary[];
};

/** Params of `payload/read`: Reads one chunk of a large value by byte offset; concatenate the decoded chunks until eof. Each read renews the reference for 30 minutes. An unknown or expired id answers invalidParams with data.reason "unknownPayload" (read the thread again); an offset past the end, "offsetOutOfRange" with data.bytes. */
export type PayloadReadParams = {
  /** A reference's id, from a payloadRef, inputRef or outputRef. */
  id: string;
  /** A byte offset: 0, then each answer's nextOffset. */
  offset: number;
};

/** Result of `payload/read`. */
export type PayloadReadResult = {
  /** Base64 of at most 48 KiB of the value's bytes from offset. */
  data: string;
  /** True when this chunk ends the value. */
  eof: boolean;
  /** The byte offset of the next chunk; present when eof is false. */
  nextOffset?: number;
};

/** Params of `project/trust/read`: Reads the server-owned trust decision for a project folder. */
export type ProjectTrustReadParams = {
  /** A directory of the project. */
  cwd: string;
};

/** Result of `project/trust/read`. */
export type ProjectTrustReadResult = {
  /** null: undecided. */
  trusted: boolean | null;
  /** The project has project-local resources that wait for a decision. */
  needsTrust: boolean;
};

/** Params of `project/trust/set`: Records a trust decision; later loads use it, loaded threads are not rebuilt. */
export type ProjectTrustSetParams = {
  /** A directory of the project. */
  cwd: string;
  /** True trusts the project, false withdraws trust. */
  trusted: boolean;
};

/** Result of `project/trust/set`. */
export type ProjectTrustSetResult = EmptyObject;

/** Params of `resource/list`: The extensions, skills, prompt templates and themes a thread in cwd (or with no project) would find, built-in and -e extensions left out; installs nothing. */
export type ResourceListParams = {
  /** An absolute path to an existing directory. */
  cwd?: string;
};

/** Result of `resource/list`. */
export type ResourceListResult = {
  resources: ResourceInfo[];
};

/** Params of `resource/set`: Switches one listed resource on or off with a + or - pattern in the settings of the scope that defines it. */
export type ResourceSetParams = {
  /** An absolute path to an existing directory. */
  cwd?: string;
  type: ResourceType;
  /** A listed resource's absolute path. */
  path: string;
  /** True turns the resource on, false off. */
  enabled: boolean;
};

/** Result of `resource/set`. */
export type ResourceSetResult = EmptyObject;

/** Params of `review/finding/apply`: Beyond the spec: writes a finding's suggestion over its lines in the working tree, as a patch, with every thread of the checkout held. gitConflict diffChanged (nothing changed) when the hunk or the lines are no longer as the review read them; invalidParams for an unknown finding or one without a suggestion. */
export type ReviewFindingApplyParams = {
  /** The thread's id. */
  threadId: string;
  /** A reviewFinding item's findingId. */
  findingId: string;
};

/** Result of `review/finding/apply`. */
export type ReviewFindingApplyResult = {
  /** The files the suggestion changed, relative to the repository root. */
  paths: string[];
};

/** Params of `review/start`: Beyond the spec: starts a review turn over one diff scope, read with hunk ids at context 3. The user message carries the review's instructions, the focus and the diff (cut, with a note, past 200,000 characters); the turn offers the model report_finding, whose findings arrive as reviewFinding items. invalidParams for an empty diff, a field of another scope, a commit or ref that resolves to nothing; turnInProgress while the thread runs a turn. */
export type ReviewStartParams = {
  /** The thread's id. */
  threadId: string;
  scope: ReviewScope;
  /** branch only: the ref to compare with (its merge base with HEAD). */
  against?: string;
  /** commit only, and needed there: the commit to review. */
  commit?: string;
  /** lastTurn only: that turn of the thread rather than the last one. */
  turnId?: string;
  /** What the review should look at most, in the user's words (at most 4,000 characters). */
  focus?: string;
  /** inline (the default): the review turn runs in the thread itself; detached: in a new child thread of the thread (its parentThreadId), in the same folder. */
  delivery?: "inline" | "detached";
};

/** Result of `review/start`. */
export type ReviewStartResult = {
  turn: Turn;
  /** The thread the review turn runs in: the thread itself, or the detached review's new child thread. */
  threadId: string;
};

/** Params of `server/diagnostics`: Memory, uptime and the shared server's counters. */
export type ServerDiagnosticsParams = EmptyObject;

/** Result of `server/diagnostics`. */
export type ServerDiagnosticsResult = {
  /** The process's resident memory. */
  rssBytes: number;
  /** JavaScript heap in use. */
  heapBytes: number;
  /** Threads loaded in memory. */
  loadedThreads: number;
  /** Threads being loaded now. */
  loadingThreads: number;
  /** Large values stored for payload/read. */
  payloadFiles: number;
  /** Their total size. */
  payloadBytes: number;
  /** Extension factories loaded but used by no thread. */
  inactiveFactories: number;
  /** Time since the server started. */
  uptimeMs: number;
  /** Cumulative transcript opens by listings, parent-header lookups included. */
  listingFilesOpened: number;
  /** Cumulative transcript bytes scanned by listings. */
  listingBytesScanned: number;
  /** The OS sandbox around the commands threads start for the model. */
  sandbox: {
    /** The sandbox this platform uses: bubblewrap on Linux, Seatbelt on macOS. */
    kind: "bwrap" | "seatbelt" | "none";
    /** Whether it can run here; without it sandboxed commands run under the approval rules alone, or are refused when sandbox.required is set. */
    available: boolean;
    /** Why it cannot run, when it cannot. */
    reason?: string;
  };
};

/** Params of `serverRequest/list`: Lists what the server waits on a person for, so a client that starts or reconnects can resume those threads and be asked. */
export type ServerRequestListParams = EmptyObject;

/** Result of `serverRequest/list`. */
export type ServerRequestListResult = {
  /** Every request the server is waiting on, for any connection, held ones included; oldest first. */
  requests: Array<{
    /** The thread that asks. */
    threadId: string;
    /** The server request it is: an approval, ask_user's questions, or a dialog (plan review is a ui/dialog). */
    method: "item/toolCall/requestApproval" | "item/toolCall/requestUserInput" | "ui/dialog";
    /** The tool call it is about, when it is about one. */
    itemId?: string;
    /** When it was first asked, in milliseconds since the epoch. */
    since: number;
  }>;
};

/** Params of `thread/archive`: Moves an idle thread's transcript into the archived folder (unloading it first); never replaces a file there. Every connection gets thread/archived. */
export type ThreadArchiveParams = {
  /** The thread's id. */
  threadId: string;
};

/** Result of `thread/archive`. */
export type ThreadArchiveResult = EmptyObject;

/** Params of `thread/compact/start`: Summarizes older history now, as a turn of its own holding a compaction item. */
export type ThreadCompactStartParams = {
  /** The thread's id. */
  threadId: string;
};

/** Result of `thread/compact/start`. */
export type ThreadCompactStartResult = {
  /** Compaction started as a turn of its own. */
  status: "started";
  /** The turn's id. */
  turnId: string;
};

/** Params of `thread/delete`: Removes an archived transcript for good. Every connection gets thread/deleted. */
export type ThreadDeleteParams = {
  /** The thread's id. */
  threadId: string;
};

/** Result of `thread/delete`. */
export type ThreadDeleteResult = EmptyObject;

/** Params of `thread/diff/read`: The thread's checkout's changes in one scope (uncommitted by default). Reads take no lock and never write the index. committed needs commit; branch compares with against, else the worktree's base, the upstream or the default branch (invalidParams when there is none). lastTurn with turnId reads that turn (stale as for the last turn); turnId with another scope is invalidParams. */
export type ThreadDiffReadParams = {
  /** The thread's id. */
  threadId: string;
  scope?: DiffScope;
  /** branch: the ref to compare with (its merge base with HEAD). */
  against?: string;
  /** committed: the commit, compared with its first parent. */
  commit?: string;
  /** Lines of context around each change; 3 by default. Ids from a context-0 read match no action. */
  context?: number;
  /** Leaves out changes of whitespace only. */
  ignoreWhitespace?: boolean;
  /** lastTurn only (beyond the spec): that turn of the thread rather than the last one. No files for a turn that changed none or took no snapshot; invalidParams for an id that is no turn of the thread, or a turn whose snapshot is no longer kept. */
  turnId?: string;
};

/** Result of `thread/diff/read`. */
export type ThreadDiffReadResult = {
  scope: DiffScope;
  /** The repository's working tree root: every path is relative to it. */
  root: string;
  files: DiffFile[];
  /** Files past the response budget, only counted. */
  filesOmitted?: number;
  /** More than 500 untracked files: none is shown, all are counted here. */
  untrackedSkipped?: number;
  /** lastTurn: the turn shown. */
  turnId?: string;
  /** lastTurn: a file the turn changed is no longer as the turn left it (undo would be refused). */
  stale?: boolean;
  /** branch: what the working tree was compared with. */
  against?: string;
};

/** Params of `thread/diff/revert`: Reverse-applies one hunk, one file or the whole scope to the working tree. Renamed, added, deleted, binary and mode-changed files revert whole; reverting an added file deletes it. lastTurn undoes (or with reapply redoes) the turn only while its files are exactly as it left (found) them. Refused while a turn runs in the checkout. invalidParams for staged and committed or a path outside the diff; gitConflict diffChanged or patchFailed. */
export type ThreadDiffRevertParams = {
  /** The thread's id. */
  threadId: string;
  scope?: DiffScope;
  /** branch: the ref to compare with (its merge base with HEAD). */
  against?: string;
  /** committed: the commit, compared with its first parent. */
  commit?: string;
  /** Lines of context around each change; 3 by default. Ids from a context-0 read match no action. */
  context?: number;
  /** Relative to the repository root, with `/` separators; taken literally. */
  path?: string;
  /** A hunk's id from a read of the same scope and context. */
  hunkId?: string;
  /** lastTurn only, without hunkId: apply the turn's changes again. */
  reapply?: boolean;
  /** lastTurn only: another last turn answers gitConflict diffChanged. */
  turnId?: string;
};

/** Result of `thread/diff/revert`. */
export type ThreadDiffRevertResult = {
  /** The files the action changed, relative to the repository root (a rename's both paths). */
  paths: string[];
};

/** Params of `thread/fork`: Copies a thread's history into a new thread named "<name> (fork)", loads it and subscribes the caller. Beyond the spec: up to a turn (turnId), in a new worktree (workspace, as thread/start takes it) whose files are as that turn found them. */
export type ThreadForkParams = {
  /** The thread's id. */
  threadId: string;
  /** Beyond the spec: the new thread's history stops just before this turn of the source's branch; with workspace worktree, the new worktree's files are as the turn found them. invalidParams for an id that is no turn of the branch. */
  turnId?: string;
  /** local by default. A cwd inside a managed worktree joins that worktree whatever this says. */
  workspace?: {
    mode: "local";
  } | {
    mode: "worktree";
    /** A ref or commit to start from; the checkout's HEAD by default. */
    baseRef?: string;
    /** Copy the checkout's uncommitted changes (untracked files included, ignored ones not); the checkout keeps them. */
    carryLocalChanges?: boolean;
    /** The name of an environment of the project's .knightcode/environments.json whose setup script runs in the new worktree. */
    environment?: string;
  };
};

/** Result of `thread/fork`. */
export type ThreadForkResult = {
  thread: Thread;
  /** Problems found while loading settings, extensions or trust; the thread started anyway. */
  warnings: Warning[];
  ui: ThreadUi;
};

/** Params of `thread/handoff`: Moves a thread and its uncommitted changes between its worktree and the user's checkout; the thread reloads there (thread/replaced, same id) and its queued inputs follow. To the checkout, files the move would change there that decide what later runs (.knightcode/, hooks, code the settings load) are named in a ui/dialog confirm first; no yes is invalidParams controlPaths with data.paths, and nothing moves. */
export type ThreadHandoffParams = {
  /** The thread's id. */
  threadId: string;
  /** local: the user's checkout; worktree: the thread's managed worktree (made when it has none). */
  to: "local" | "worktree";
  /** To local: the branch to create when the worktree has none of its own. */
  branch?: string;
  /** To a new worktree: the environment whose setup script runs there. */
  environment?: string;
};

/** Result of `thread/handoff`. */
export type ThreadHandoffResult = {
  thread: Thread;
  /** To local: the branch now checked out in the user's checkout. */
  branch?: string;
  /** Problems found while reloading the thread there. */
  warnings: Warning[];
};

/** Params of `thread/list`: Thread summaries newest first, from each sessions folder's index; later pages come from a snapshot of the first. */
export type ThreadListParams = {
  /** Only this project's threads. */
  cwd?: string;
  /** List archived threads instead. */
  archived?: boolean;
  /** Only threads whose title (as `title` shows it) contains this text, ignoring case. A cursor keeps the search it was made with. */
  search?: string;
  /** Only the sub-agents this thread started. */
  parentThreadId?: string;
  /** A nextCursor from an earlier page; null or absent for the first page. */
  cursor?: string | null;
  /** 50 by default. */
  limit?: number;
};

/** Result of `thread/list`. */
export type ThreadListResult = {
  threads: ThreadSummary[];
  /** Present when there is another page: pass it as cursor. */
  nextCursor?: string;
};

/** Params of `thread/name/set`: Renames a loaded thread; every connection gets thread/name/updated. */
export type ThreadNameSetParams = {
  /** The thread's id. */
  threadId: string;
  /** The new name. */
  name: string;
};

/** Result of `thread/name/set`. */
export type ThreadNameSetResult = EmptyObject;

/** Params of `thread/read`: Reads a page of saved history (newest page first) without loading, locking or writing the thread; archived threads too. A turn this server is running reads as inProgress, as it stands. */
export type ThreadReadParams = {
  /** The thread's id. */
  threadId: string;
  /** A nextCursor from an earlier page; null or absent for the first page. */
  cursor?: string | null;
  /** Beyond the spec: read the branch that ends at this entry (a thread/rewind answer's previousLeafId) instead of the current one; nextCursor pages on along it. invalidParams for an id the transcript does not hold. */
  leafId?: string;
};

/** Result of `thread/read`. */
export type ThreadReadResult = {
  thread: ThreadSummary;
  turns: Turn[];
  /** Present when there is another page: pass it as cursor. */
  nextCursor?: string;
};

/** Params of `thread/resume`: Loads and owns a thread and subscribes in the same step as it builds the answer: the first history page and live snapshots. */
export type ThreadResumeParams = {
  /** The thread's id. */
  threadId: string;
  /** A nextCursor from an earlier page; null or absent for the first page. */
  cursor?: string | null;
  /** The last seq this client saw of the thread: what came after it is sent again right after the answer, when the server still holds it. */
  afterSeq?: number;
};

/** Result of `thread/resume`. */
export type ThreadResumeResult = {
  thread: Thread;
  turns: Turn[];
  /** Present when there is another page: pass it as cursor. */
  nextCursor?: string;
  runningTurn?: Turn;
  queue: QueueSnapshot;
  usage: TokenUsage;
  warnings: Warning[];
  ui: ThreadUi;
  /** Only with afterSeq. true: every notification after afterSeq follows this answer, in order, before anything newer. false: the server no longer holds them; this answer is the whole state. */
  replayed?: boolean;
};

/** Params of `thread/rewind`: Beyond the spec: takes a thread back to just before one of its turns. conversation: the history branches again before the turn (the old branch is kept; the thread reloads, thread/replaced with the same id). code: every file the undone turns changed (through any tool) goes back to the turn's before-snapshot; a file edited since the last of them ended refuses it with gitConflict diffChanged (data.paths) unless force. both: code first. Refused while a turn runs in the thread or its checkout; invalidParams for an unknown turn or, for code, a turn without a snapshot. Subscribers get thread/rewound. */
export type ThreadRewindParams = {
  /** The thread's id. */
  threadId: string;
  /** The first turn undone: it and every later turn of the branch. */
  turnId: string;
  /** conversation: a new branch of the history before the turn; code: the files the turns changed as the turn found them; both: code, then conversation. */
  mode: "conversation" | "code" | "both";
  /** code and both: restore over files edited since the last undone turn ended, losing those edits. */
  force?: boolean;
};

/** Result of `thread/rewind`. */
export type ThreadRewindResult = {
  /** The files the rewind changed in the working tree, by path; empty for conversation. */
  files: RewoundFile[];
  /** conversation and both: the last entry of the branch left behind, which stays in the transcript; thread/read with leafId reads it. */
  previousLeafId?: string;
};

/** Params of `thread/settings/update`: Changes a loaded thread's model, thinking level or approval mode for its next turns. */
export type ThreadSettingsUpdateParams = {
  /** The thread's id. */
  threadId: string;
  model?: ModelRef;
  thinkingLevel?: ThinkingLevel;
  approvalMode?: ApprovalMode;
  /** Applies at once, mid-turn too, like approvalMode. */
  planMode?: boolean;
};

/** Result of `thread/settings/update`. */
export type ThreadSettingsUpdateResult = {
  thread: Thread;
};

/** Params of `thread/start`: Creates a thread (its session file exists at once), loads it and subscribes the caller; in worktree mode, in a new managed worktree made first. */
export type ThreadStartParams = {
  /** An existing directory: the project. */
  cwd: string;
  approvalMode?: ApprovalMode;
  model?: ModelRef;
  thinkingLevel?: ThinkingLevel;
  /** local by default. A cwd inside a managed worktree joins that worktree whatever this says. */
  workspace?: {
    mode: "local";
  } | {
    mode: "worktree";
    /** A ref or commit to start from; the checkout's HEAD by default. */
    baseRef?: string;
    /** Copy the checkout's uncommitted changes (untracked files included, ignored ones not); the checkout keeps them. */
    carryLocalChanges?: boolean;
    /** The name of an environment of the project's .knightcode/environments.json whose setup script runs in the new worktree. */
    environment?: string;
  };
};

/** Result of `thread/start`. */
export type ThreadStartResult = {
  thread: Thread;
  /** Problems found while loading settings, extensions or trust; the thread started anyway. */
  warnings: Warning[];
  ui: ThreadUi;
};

/** Params of `thread/unarchive`: Moves an archived transcript back beside the active ones; never replaces a file. Every connection gets thread/unarchived. */
export type ThreadUnarchiveParams = {
  /** The thread's id. */
  threadId: string;
};

/** Result of `thread/unarchive`. */
export type ThreadUnarchiveResult = EmptyObject;

/** Params of `thread/unsubscribe`: Stops this connection's thread notifications. */
export type ThreadUnsubscribeParams = {
  /** The thread's id. */
  threadId: string;
};

/** Result of `thread/unsubscribe`. */
export type ThreadUnsubscribeResult = {
  /** notSubscribed: this connection was not subscribed. */
  status: "unsubscribed" | "notSubscribed";
};

/** Params of `thread/worktree/restore`: Rebuilds a worktree thread's deleted worktree at its old path from its snapshot (detached at the old HEAD, files and staged state as they were), then loads the thread there. */
export type ThreadWorktreeRestoreParams = {
  /** The thread's id. */
  threadId: string;
};

/** Result of `thread/worktree/restore`. */
export type ThreadWorktreeRestoreResult = {
  thread: Thread;
};

/** Params of `tool/list`: The tools a new thread in `cwd` would register, from a session built in memory like command/list's: no extension starts, no MCP server starts, nothing is written. Change `defaultTools` with config/write. */
export type ToolListParams = {
  /** An existing directory: what a new thread there would have. Without it, a project-less thread (global settings and resources only). */
  cwd?: string;
};

/** Result of `tool/list`. */
export type ToolListResult = {
  /** Every tool a new desktop thread would have, each name once, sorted by name; tools tools.json switches off are left out. */
  tools: ToolInfo[];
  /** The tools such a thread offers the model, in that order: the defaultTools setting resolved (read, bash, edit, write when it names none; `+name` adds, `-name` removes), plus the tools a thread offers whenever it has them (ask_user, submit_plan, websearch, extension tools) unless `-name` removes them. Every name is in `tools`. */
  defaultTools: string[];
};

/** Params of `tool/settings/read`: The KnightCode tools and the classifier gate as `<agentDir>/tools.json` configures them, secrets masked. A tools.json that cannot be understood answers `internal`. */
export type ToolSettingsReadParams = EmptyObject;

/** Result of `tool/settings/read`. */
export type ToolSettingsReadResult = {
  /** Each entry tools.json manages, set or not. */
  tools: ToolSettingsEntry[];
  /** The models with credentials, for the classifier gate's `model`. */
  classifiers: ClassifierModel[];
};

/** Params of `tool/settings/write`: Sets one setting in `<agentDir>/tools.json` (kept whole, written 0600 under the settings lock). An unknown name, a malformed or unknown key, or a value of the wrong type is `invalidParams`; a tools.json that cannot be understood is refused with `internal` and left as it is. Threads loaded later use the change; a loaded websearch tool reads its provider and key at each call. */
export type ToolSettingsWriteParams = {
  /** `websearch` or `classifiers.gate`. */
  name: string;
  /** `enabled`, or one of the entry's settings; one name, not a dotted path. */
  key: string;
  /** `enabled` takes a boolean, every other key a string; null deletes the key (for `enabled`, restores the default). */
  value: boolean | string | null;
};

/** Result of `tool/settings/write`. */
export type ToolSettingsWriteResult = EmptyObject;

/** Params of `turn/interrupt`: Stops the running turn (or the start waiting on its input hooks) and drops queued inputs; answers at once. */
export type TurnInterruptParams = {
  /** The thread's id. */
  threadId: string;
  /** The turn's id. */
  turnId?: string;
};

/** Result of `turn/interrupt`. */
export type TurnInterruptResult = {
  /** Whether a turn or a start was running to interrupt. */
  interrupted: boolean;
};

/** Params of `turn/queue/add`: Queues input that starts a turn of its own once the thread is idle, oldest first; at once on an idle thread. At most 100 inputs, 4 MiB of text and 256 MiB of images wait per thread, queued and steering together; past that invalidParams with data {reason: "queueFull", maxInputs, maxTextBytes, maxImageBytes}. A built-in command (/compact, /new, /reload) is invalidParams: only turn/start runs one. */
export type TurnQueueAddParams = {
  /** The thread's id. */
  threadId: string;
  /** The user's message. */
  text: string;
  /** The client's own id for the message, echoed on its userMessage item. */
  clientMessageId?: string;
  /** At most 32 images sent with the text. */
  images?: ImageInput[];
  /** Review comments on hunks of the current diff, at most 50; the server quotes the commented lines. A hunk id that matches nothing answers invalidParams. */
  comments?: ReviewCommentInput[];
};

/** Result of `turn/queue/add`. */
export type TurnQueueAddResult = {
  /** Names the queued input for turn/queue/remove. */
  queueId: string;
};

/** Params of `turn/queue/remove`: Takes a queued input back before it starts; saved history is not edited. */
export type TurnQueueRemoveParams = {
  /** The thread's id. */
  threadId: string;
  /** The queueId turn/queue/add answered. */
  queueId: string;
};

/** Result of `turn/queue/remove`. */
export type TurnQueueRemoveResult = {
  /** False: unknown, already started or already removed. */
  removed: boolean;
};

/** Params of `turn/start`: Starts a turn without waiting for it: started, handled (a command or an extension consumed the input) or cancelled. A session-replacing command answers handled with the new thread's id. */
export type TurnStartParams = {
  /** The thread's id. */
  threadId: string;
  /** The user's message. */
  text: string;
  /** The client's own id for this request, echoed in the result and on turn/started so the turn can be matched to it. */
  requestId?: string;
  /** The client's own id for the message, echoed on its userMessage item so the client can match its optimistic copy. */
  clientMessageId?: string;
  /** At most 32 images sent with the text. */
  images?: ImageInput[];
  /** Review comments on hunks of the current diff, at most 50; the server quotes the commented lines. A hunk id that matches nothing answers invalidParams. */
  comments?: ReviewCommentInput[];
};

/** Result of `turn/start`. */
export type TurnStartResult = {
  /** started: a turn runs; handled: a command or extension took the input and no turn runs; cancelled: an extension dropped it. */
  status: "started" | "handled" | "cancelled";
  /** The thread that now runs: the new one after a session-replacing command. */
  threadId: string;
  /** The requestId the client sent. */
  requestId?: string;
};

/** Params of `turn/steer`: Hands input to the running turn, which must be expectedTurnId; a steer the turn ends before accepting answers invalidParams. Steers waiting for delivery count toward the queue's limit (invalidParams, data.reason "queueFull"). A built-in command (/compact, /new, /reload) is invalidParams: only turn/start runs one. */
export type TurnSteerParams = {
  /** The thread's id. */
  threadId: string;
  /** The user's message. */
  text: string;
  /** The turn's id. */
  expectedTurnId: string;
  /** At most 32 images sent with the text. */
  images?: ImageInput[];
};

/** Result of `turn/steer`. */
export type TurnSteerResult = {
  /** steered: the running turn takes it; handled: a command or extension took it. */
  status: "steered" | "handled";
  /** The turn's id. */
  turnId: string;
};

/** Params of `ui/event`: A press or change of a control in a widget's view; every ctx.ui.onViewEvent handler of the thread gets it. A gone widget or control answers {} and reaches nobody; a value that does not fit the control is invalidParams. */
export type UiEventParams = {
  /** The thread's id. */
  threadId: string;
  /** The widget whose view the event came from. */
  widgetKey: string;
  /** The control's id in the widget's view. */
  id: string;
  /** A toggle's boolean, a select's option, a text field's text; absent for a button. */
  value?: string | boolean;
};

/** Result of `ui/event`. */
export type UiEventResult = EmptyObject;

/** Params of `worktree/delete`: Deletes a managed worktree after its snapshot; never one a thread is loaded in (worktreeInUse) or that holds a nested repository (submodules). */
export type WorktreeDeleteParams = {
  /** The worktree's path, as worktree/list shows it. */
  path: string;
};

/** Result of `worktree/delete`. */
export type WorktreeDeleteResult = {
  /** The ref that keeps its snapshot: refs/knightcode/snapshots/<bucket>/<Unix ms>. */
  snapshot?: string;
};

/** Params of `worktree/list`: The managed worktrees, deleted ones included, most recently used first. */
export type WorktreeListParams = {
  /** Only the worktrees of this project's repository. */
  cwd?: string;
};

/** Result of `worktree/list`. */
export type WorktreeListResult = {
  worktrees: ManagedWorktree[];
};

/** Params and result of every method in clientRequests, by method name. */
export interface ClientRequests {
  "account/login/cancel": { params: AccountLoginCancelParams; result: AccountLoginCancelResult };
  "account/login/start": { params: AccountLoginStartParams; result: AccountLoginStartResult };
  "account/logout": { params: AccountLogoutParams; result: AccountLogoutResult };
  "account/read": { params: AccountReadParams; result: AccountReadResult };
  "command/exec": { params: CommandExecParams; result: CommandExecResult };
  "command/exec/list": { params: CommandExecListParams; result: CommandExecListResult };
  "command/exec/resize": { params: CommandExecResizeParams; result: CommandExecResizeResult };
  "command/exec/terminate": { params: CommandExecTerminateParams; result: CommandExecTerminateResult };
  "command/exec/write": { params: CommandExecWriteParams; result: CommandExecWriteResult };
  "command/list": { params: CommandListParams; result: CommandListResult };
  "config/read": { params: ConfigReadParams; result: ConfigReadResult };
  "config/write": { params: ConfigWriteParams; result: ConfigWriteResult };
  "directory/list": { params: DirectoryListParams; result: DirectoryListResult };
  "environment/list": { params: EnvironmentListParams; result: EnvironmentListResult };
  "environment/save": { params: EnvironmentSaveParams; result: EnvironmentSaveResult };
  "file/search": { params: FileSearchParams; result: FileSearchResult };
  "git/branch/create": { params: GitBranchCreateParams; result: GitBranchCreateResult };
  "git/branch/switch": { params: GitBranchSwitchParams; result: GitBranchSwitchResult };
  "git/branches": { params: GitBranchesParams; result: GitBranchesResult };
  "git/commit": { params: GitCommitParams; result: GitCommitResult };
  "git/commit/message": { params: GitCommitMessageParams; result: GitCommitMessageResult };
  "git/log": { params: GitLogParams; result: GitLogResult };
  "git/pr/create": { params: GitPrCreateParams; result: GitPrCreateResult };
  "git/push": { params: GitPushParams; result: GitPushResult };
  "git/stage": { params: GitStageParams; result: GitStageResult };
  "git/status": { params: GitStatusParams; result: GitStatusResult };
  "git/unstage": { params: GitUnstageParams; result: GitUnstageResult };
  "initialize": { params: InitializeParams; result: InitializeResult };
  "mcp/add": { params: McpAddParams; result: McpAddResult };
  "mcp/list": { params: McpListParams; result: McpListResult };
  "mcp/remove": { params: McpRemoveParams; result: McpRemoveResult };
  "mcp/update": { params: McpUpdateParams; result: McpUpdateResult };
  "model/list": { params: ModelListParams; result: ModelListResult };
  "payload/read": { params: PayloadReadParams; result: PayloadReadResult };
  "project/trust/read": { params: ProjectTrustReadParams; result: ProjectTrustReadResult };
  "project/trust/set": { params: ProjectTrustSetParams; result: ProjectTrustSetResult };
  "resource/list": { params: ResourceListParams; result: ResourceListResult };
  "resource/set": { params: ResourceSetParams; result: ResourceSetResult };
  "review/finding/apply": { params: ReviewFindingApplyParams; result: ReviewFindingApplyResult };
  "review/start": { params: ReviewStartParams; result: ReviewStartResult };
  "server/diagnostics": { params: ServerDiagnosticsParams; result: ServerDiagnosticsResult };
  "serverRequest/list": { params: ServerRequestListParams; result: ServerRequestListResult };
  "thread/archive": { params: ThreadArchiveParams; result: ThreadArchiveResult };
  "thread/compact/start": { params: ThreadCompactStartParams; result: ThreadCompactStartResult };
  "thread/delete": { params: ThreadDeleteParams; result: ThreadDeleteResult };
  "thread/diff/read": { params: ThreadDiffReadParams; result: ThreadDiffReadResult };
  "thread/diff/revert": { params: ThreadDiffRevertParams; result: ThreadDiffRevertResult };
  "thread/fork": { params: ThreadForkParams; result: ThreadForkResult };
  "thread/handoff": { params: ThreadHandoffParams; result: ThreadHandoffResult };
  "thread/list": { params: ThreadListParams; result: ThreadListResult };
  "thread/name/set": { params: ThreadNameSetParams; result: ThreadNameSetResult };
  "thread/read": { params: ThreadReadParams; result: ThreadReadResult };
  "thread/resume": { params: ThreadResumeParams; result: ThreadResumeResult };
  "thread/rewind": { params: ThreadRewindParams; result: ThreadRewindResult };
  "thread/settings/update": { params: ThreadSettingsUpdateParams; result: ThreadSettingsUpdateResult };
  "thread/start": { params: ThreadStartParams; result: ThreadStartResult };
  "thread/unarchive": { params: ThreadUnarchiveParams; result: ThreadUnarchiveResult };
  "thread/unsubscribe": { params: ThreadUnsubscribeParams; result: ThreadUnsubscribeResult };
  "thread/worktree/restore": { params: ThreadWorktreeRestoreParams; result: ThreadWorktreeRestoreResult };
  "tool/list": { params: ToolListParams; result: ToolListResult };
  "tool/settings/read": { params: ToolSettingsReadParams; result: ToolSettingsReadResult };
  "tool/settings/write": { params: ToolSettingsWriteParams; result: ToolSettingsWriteResult };
  "turn/interrupt": { params: TurnInterruptParams; result: TurnInterruptResult };
  "turn/queue/add": { params: TurnQueueAddParams; result: TurnQueueAddResult };
  "turn/queue/remove": { params: TurnQueueRemoveParams; result: TurnQueueRemoveResult };
  "turn/start": { params: TurnStartParams; result: TurnStartResult };
  "turn/steer": { params: TurnSteerParams; result: TurnSteerResult };
  "ui/event": { params: UiEventParams; result: UiEventResult };
  "worktree/delete": { params: WorktreeDeleteParams; result: WorktreeDeleteResult };
  "worktree/list": { params: WorktreeListParams; result: WorktreeListResult };
}

// ClientNotifications

/** Params of `initialized`: Sent once after the `initialize` result; other requests are refused until it arrives. */
export type InitializedParams = EmptyObject;

/** Params of every method in clientNotifications, by method name. */
export interface ClientNotifications {
  "initialized": { params: InitializedParams };
}

// ServerRequests

/** Params of `item/toolCall/requestApproval`: Asks one subscriber whether a tool call may run; withdrawn with serverRequest/cancelled when it moves or ends. */
export type ItemToolCallRequestApprovalParams = {
  /** The thread's id. */
  threadId: string;
  /** The turn's id. */
  turnId: string;
  /** The tool call's item id (its call id). */
  itemId: string;
  /** The tool's name. */
  tool: string;
  /** The tool call's arguments; absent when over the inline limit (see inputRef). */
  input?: unknown;
  inputRef?: PayloadRef;
  /** The choices to render; anything else counts as decline. */
  decisions: ApprovalDecision[];
  /** Why the gate asks, such as a write outside the workspace. */
  reason?: string;
  /** The shell command prefix acceptPrefixForSession would grant. */
  prefix?: string;
};

/** Result of `item/toolCall/requestApproval`. */
export type ItemToolCallRequestApprovalResult = {
  decision: ApprovalDecision;
  /** A decline's reason for the agent. */
  message?: string;
};

/** Params of `item/toolCall/requestUserInput`: Asks one subscriber ask_user's questions, all at once; moved and withdrawn as approvals are. */
export type ItemToolCallRequestUserInputParams = {
  /** The thread's id. */
  threadId: string;
  /** The turn's id. */
  turnId: string;
  /** The ask_user call's item id. */
  itemId: string;
  /** All of the call's questions, as the model gave them. */
  questions: UserQuestion[];
};

/** Result of `item/toolCall/requestUserInput`. */
export type ItemToolCallRequestUserInputResult = {
  /** By question id; a skipped question is left out. Absent: the questions are dismissed and the turn stops. */
  answers?: Record<string, UserAnswer>;
};

/** Params of `ui/dialog`: An extension's or a built-in feature's question (select, confirm, input, editor); {} cancels. Moved and withdrawn as approvals are. */
export type UiDialogParams = DialogParams;

/** Result of `ui/dialog`. */
export type UiDialogResult = {
  /** A select's chosen option, an input's or an editor's text. */
  value?: string;
  /** A confirm's answer. */
  confirmed?: boolean;
};

/** Params and result of every method in serverRequests, by method name. */
export interface ServerRequests {
  "item/toolCall/requestApproval": { params: ItemToolCallRequestApprovalParams; result: ItemToolCallRequestApprovalResult };
  "item/toolCall/requestUserInput": { params: ItemToolCallRequestUserInputParams; result: ItemToolCallRequestUserInputResult };
  "ui/dialog": { params: UiDialogParams; result: UiDialogResult };
}

// ServerNotifications

/** Params of `account/updated`: A credential was stored or removed, or an OAuth login ended (login); to every connection. accounts is what account/read answers. */
export type AccountUpdatedParams = {
  /** One per provider, sorted by provider: the credential in effect (a stored one wins over the environment). */
  accounts: Account[];
  login?: LoginOutcome;
};

/** Params of `command/exec/exited`: Beyond the spec; see docs/terminals.md. A command/exec process ended, after its last outputDelta; its processId is unknown from then on. */
export type CommandExecExitedParams = {
  /** The thread whose folder the command runs in, and which owns its processes. */
  threadId: string;
  /** The process command/exec answered. */
  processId: string;
  /** Null when a signal ended it. */
  exitCode: number | null;
  /** The signal that ended it (SIGTERM, SIGKILL), or null. */
  signal: string | null;
  /** Its output reached terminals.maxOutputBytes: the deltas stop there, and the process was stopped. */
  truncated: boolean;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `command/exec/outputDelta`: Beyond the spec; see docs/terminals.md. Output of a command/exec process, in order, to the thread's subscribers. */
export type CommandExecOutputDeltaParams = {
  /** The thread whose folder the command runs in, and which owns its processes. */
  threadId: string;
  /** The process command/exec answered. */
  processId: string;
  /** Which output: pty for a command on a terminal. */
  stream: "stdout" | "stderr" | "pty";
  /** The bytes, base64, as the command wrote them: a UTF-8 character may be split between two deltas. */
  data: string;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `error`: Something failed outside any request: a malformed line, an oversized line, a dropped queued input, a lost thread. */
export type ErrorParams = {
  /** What went wrong, for the user. */
  message: string;
  /** What went wrong: parseError, lineTooLong, unknownResponse, methodNotFound, or a turn error kind. */
  kind?: string;
  /** The thread it concerns, when it concerns one. */
  threadId?: string;
  /** The clientMessageId of the input the error is about. */
  clientMessageId?: string;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `item/agentMessage/delta`: More answer text. */
export type ItemAgentMessageDeltaParams = {
  /** The thread's id. */
  threadId: string;
  /** The turn's id. */
  turnId: string;
  /** The item's id: for a tool call, its call id. */
  itemId: string;
  /** Text to append to the item's text. */
  delta: string;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `item/completed`: An item's final times, text, fileChanges and index: replace what streamed. An item over the inline limit comes as {id, type, index?, payloadRef}. */
export type ItemCompletedParams = {
  /** The thread's id. */
  threadId: string;
  /** The turn's id. */
  turnId: string;
  item: HistoryItem;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `item/reasoning/delta`: More reasoning text. */
export type ItemReasoningDeltaParams = {
  /** The thread's id. */
  threadId: string;
  /** The turn's id. */
  turnId: string;
  /** The item's id: for a tool call, its call id. */
  itemId: string;
  /** Text to append to the item's text. */
  delta: string;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `item/removed`: An item was withdrawn (a failed attempt's partial reply, or one a message-end handler dropped). */
export type ItemRemovedParams = {
  /** The thread's id. */
  threadId: string;
  /** The turn's id. */
  turnId: string;
  /** The item's id: for a tool call, its call id. */
  itemId: string;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `item/started`: An item began; its times and contents are provisional. An item over the inline limit comes as {id, type, index?, payloadRef}. */
export type ItemStartedParams = {
  /** The thread's id. */
  threadId: string;
  /** The turn's id. */
  turnId: string;
  item: HistoryItem;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `serverRequest/cancelled`: Withdraws a server request still waiting for its answer; an answer sent anyway is ignored. */
export type ServerRequestCancelledParams = {
  requestId: RequestId;
};

/** Params of `thread/archived`: A thread was archived; to every connection. */
export type ThreadArchivedParams = {
  /** The thread's id. */
  threadId: string;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `thread/deleted`: An archived thread was deleted; to every connection. */
export type ThreadDeletedParams = {
  /** The thread's id. */
  threadId: string;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `thread/name/updated`: A thread was renamed; to every connection. */
export type ThreadNameUpdatedParams = {
  /** The thread's id. */
  threadId: string;
  /** The new name. */
  name: string;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `thread/planMode/updated`: Plan mode turned on or off (settings, /plan, an approved plan); to subscribers. */
export type ThreadPlanModeUpdatedParams = {
  /** The thread's id. */
  threadId: string;
  /** Whether plan mode is now on. */
  planMode: boolean;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `thread/replaced`: A command replaced the thread (/new, an extension's ctx.newSession()): this connection is now subscribed to `thread` instead, and the old thread's extension contexts are stale; to the old thread's subscribers. */
export type ThreadReplacedParams = {
  /** The thread that was replaced. */
  threadId: string;
  thread: Thread;
  /** The new thread's load warnings. */
  warnings: Warning[];
  ui: ThreadUi;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `thread/rewound`: Beyond the spec: a thread was rewound (thread/rewind): what its answer said. To the thread's subscribers, after thread/replaced when the conversation moved. */
export type ThreadRewoundParams = {
  /** The thread's id. */
  threadId: string;
  /** The first turn undone. */
  turnId: string;
  /** conversation: a new branch of the history before the turn; code: the files the turns changed as the turn found them; both: code, then conversation. */
  mode: "conversation" | "code" | "both";
  /** The files the rewind changed in the working tree, by path; empty for conversation. */
  files: RewoundFile[];
  /** conversation and both: the last entry of the branch left behind, which stays in the transcript; thread/read with leafId reads it. */
  previousLeafId?: string;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `thread/started`: A thread was created (start, fork or a session-replacing command); to every connection. */
export type ThreadStartedParams = {
  thread: Thread;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `thread/status/changed`: A thread's status changed; to every connection. */
export type ThreadStatusChangedParams = {
  /** The thread's id. */
  threadId: string;
  status: ThreadStatus;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `thread/tokenUsage/updated`: After every finalized assistant reply (and compaction billing); to subscribers. */
export type ThreadTokenUsageUpdatedParams = {
  /** The thread's id. */
  threadId: string;
  /** The turn it concerns, when it concerns one. */
  turnId?: string;
  usage: TokenUsage;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `thread/turn/completed`: The same outcome, for sidebars; to every connection. */
export type ThreadTurnCompletedParams = {
  /** The thread's id. */
  threadId: string;
  turn: Turn;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `thread/unarchived`: A thread was unarchived; to every connection. */
export type ThreadUnarchivedParams = {
  /** The thread's id. */
  threadId: string;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `thread/workspace/progress`: Output of an environment's setup or cleanup script in a thread's worktree; to the connection that asked for the work. */
export type ThreadWorkspaceProgressParams = {
  /** The thread's id. */
  threadId: string;
  /** Which environment script is running. */
  phase: "setup" | "cleanup";
  /** The next piece of the script's output (stdout and stderr as they came); empty in the report that ends it. */
  output: string;
  /** The script ended: the last report of the phase. */
  done?: boolean;
  /** With done: how it ended; null when a signal stopped it. */
  exitCode?: number | null;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `turn/completed`: A turn ended (completed, failed or interrupted); a summary without items; to subscribers. */
export type TurnCompletedParams = {
  /** The thread's id. */
  threadId: string;
  turn: Turn;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `turn/diff/updated`: After turn/completed: the net line totals of each file that changed in the thread's git checkout while the turn ran; not sent when none changed, nor outside git. To subscribers. */
export type TurnDiffUpdatedParams = {
  /** The thread's id. */
  threadId: string;
  /** The turn's id. */
  turnId: string;
  files: FileTotals[];
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `turn/queue/updated`: Steers the agent has not delivered yet and the queued inputs, whenever either changes, at most once per thread per turn of the server's event loop (the newest state); to subscribers. */
export type TurnQueueUpdatedParams = {
  /** The thread's id. */
  threadId: string;
  /** Texts the running turn takes at its next step. */
  steering: string[];
  /** Inputs that start turns of their own, oldest first. */
  followUp: Array<{
    /** The queueId. */
    id: string;
    /** The queued text. */
    text: string;
    /** How many images go with it. */
    attachments?: number;
  }>;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `turn/retrying`: A transient provider error; the turn retries after delayMs; to subscribers. */
export type TurnRetryingParams = {
  /** The thread's id. */
  threadId: string;
  /** The turn's id. */
  turnId: string;
  /** Which retry this is, from 1. */
  attempt: number;
  /** How many retries there will be at most. */
  maxAttempts: number;
  /** How long until the retry. */
  delayMs: number;
  error: TurnError;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `turn/started`: A turn began; to subscribers. */
export type TurnStartedParams = {
  /** The thread's id. */
  threadId: string;
  turn: Turn;
  /** The requestId of the turn/start that began it. */
  requestId?: string;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `ui/notify`: A notice from an extension; to subscribers. */
export type UiNotifyParams = {
  /** The thread's id. */
  threadId: string;
  /** The text to show. */
  message: string;
  /** How the client should show it. */
  level: "info" | "warning" | "error";
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `ui/state`: Every field of the thread's extension UI but the widgets, whole, whenever one changes; to subscribers. */
export type UiStateParams = {
  /** The thread's id. */
  threadId: string;
  /** Sorted by key. */
  statuses: Array<{
    /** The status line's key, chosen by the extension. */
    key: string;
    /** The text to show. */
    text: string;
  }>;
  /** Absent: cleared. */
  title?: string;
  /** Absent: cleared. */
  workingMessage?: string;
  /** Whether the working indicator shows while a turn runs. */
  workingVisible: boolean;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `ui/widget`: One widget set or replaced (it moves to the end of its placement), or {threadId, key} alone when removed; to subscribers. */
export type UiWidgetParams = {
  /** The thread's id. */
  threadId: string;
  /** The widget's key, chosen by the extension. */
  key: string;
  /** Above or below the editor; absent when removed. */
  placement?: "aboveEditor" | "belowEditor";
  /** Text lines to show. */
  lines?: string[];
  view?: View;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of `warning`: A problem that did not stop the work, such as an extension's failure; to subscribers. */
export type WarningParams = {
  /** The thread it concerns, when it concerns one. */
  threadId?: string;
  warning: Warning;
  /** Only for a connection initialized with capabilities.sequenced: the thread's counter, one more for each notification sent to its subscribers. Pass the last one seen as thread/resume's afterSeq. */
  seq?: number;
  /** Only for a connection initialized with capabilities.subagents, on a sub-agent's notification sent because the connection is subscribed to its parent: the parent thread. */
  parentThreadId?: string;
};

/** Params of every method in serverNotifications, by method name. */
export interface ServerNotifications {
  "account/updated": { params: AccountUpdatedParams };
  "command/exec/exited": { params: CommandExecExitedParams };
  "command/exec/outputDelta": { params: CommandExecOutputDeltaParams };
  "error": { params: ErrorParams };
  "item/agentMessage/delta": { params: ItemAgentMessageDeltaParams };
  "item/completed": { params: ItemCompletedParams };
  "item/reasoning/delta": { params: ItemReasoningDeltaParams };
  "item/removed": { params: ItemRemovedParams };
  "item/started": { params: ItemStartedParams };
  "serverRequest/cancelled": { params: ServerRequestCancelledParams };
  "thread/archived": { params: ThreadArchivedParams };
  "thread/deleted": { params: ThreadDeletedParams };
  "thread/name/updated": { params: ThreadNameUpdatedParams };
  "thread/planMode/updated": { params: ThreadPlanModeUpdatedParams };
  "thread/replaced": { params: ThreadReplacedParams };
  "thread/rewound": { params: ThreadRewoundParams };
  "thread/started": { params: ThreadStartedParams };
  "thread/status/changed": { params: ThreadStatusChangedParams };
  "thread/tokenUsage/updated": { params: ThreadTokenUsageUpdatedParams };
  "thread/turn/completed": { params: ThreadTurnCompletedParams };
  "thread/unarchived": { params: ThreadUnarchivedParams };
  "thread/workspace/progress": { params: ThreadWorkspaceProgressParams };
  "turn/completed": { params: TurnCompletedParams };
  "turn/diff/updated": { params: TurnDiffUpdatedParams };
  "turn/queue/updated": { params: TurnQueueUpdatedParams };
  "turn/retrying": { params: TurnRetryingParams };
  "turn/started": { params: TurnStartedParams };
  "ui/notify": { params: UiNotifyParams };
  "ui/state": { params: UiStateParams };
  "ui/widget": { params: UiWidgetParams };
  "warning": { params: WarningParams };
}
