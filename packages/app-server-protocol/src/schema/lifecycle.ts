import { Type } from "typebox";
import { Closed, EmptyObject, RequestId } from "./common.js";
import { notification, request } from "./define.js";

export const MAX_OPT_OUT_NOTIFICATIONS = 256;

const ClientInfo = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256, description: "The client's name, for logs and diagnostics." }),
    version: Type.Optional(Type.String({ maxLength: 256, description: "The client's version." })),
    title: Type.Optional(Type.String({ maxLength: 256, description: "A display name for the client." })),
  },
  Closed,
);

// Open: a capability this server does not know is ignored, so a newer client still connects.
const ClientCapabilities = Type.Object({
  optOutNotifications: Type.Optional(
    Type.Array(Type.String({ maxLength: 256 }), {
      maxItems: MAX_OPT_OUT_NOTIFICATIONS,
      description: "Notification methods this connection does not want. Unknown names are tolerated.",
    }),
  ),
  holdRequests: Type.Optional(
    Type.Boolean({
      description:
        "Requests to this connection (approvals, requestUserInput, ui/dialog, plan review) outlive it: when it was the last subscriber to leave, a request waits up to the global setting requests.holdSeconds for the thread's next subscriber instead of being cancelled at once.",
    }),
  ),
  sequenced: Type.Optional(
    Type.Boolean({
      description: "Number every notification about a thread with seq, so that thread/resume's afterSeq can replay what this client missed.",
    }),
  ),
  subagents: Type.Optional(
    Type.Boolean({
      description:
        "A subscriber of a thread also gets the notifications of the sub-agents its model started, each with the sub-agent's threadId and parentThreadId, without subscribing to them.",
    }),
  ),
});

const InitializeParams = Type.Object(
  {
    clientInfo: { ...ClientInfo, description: "Who is connecting." },
    capabilities: Type.Optional({ ...ClientCapabilities, description: "What this connection wants or supports." }),
  },
  Closed,
);

const InitializeResult = Type.Object(
  {
    serverInfo: Type.Object(
      { name: Type.String({ description: "The server's name." }), version: Type.String({ description: "The server's version." }) },
      { ...Closed, description: "Which server answered." },
    ),
    platform: Type.Object(
      {
        os: Type.Union([Type.Literal("linux"), Type.Literal("darwin"), Type.Literal("win32")], { description: "The operating system the server runs on." }),
        arch: Type.String({ description: "The CPU architecture, as Node names it (x64, arm64)." }),
        homeDir: Type.String({ description: "The home directory of the user the server runs as." }),
      },
      { ...Closed, description: "Where the server runs, so a client can show paths and shortcuts that fit." },
    ),
  },
  Closed,
);

const Count = Type.Integer({ minimum: 0 });

const DiagnosticsResult = Type.Object(
  {
    rssBytes: { ...Count, description: "The process's resident memory." },
    heapBytes: { ...Count, description: "JavaScript heap in use." },
    loadedThreads: { ...Count, description: "Threads loaded in memory." },
    loadingThreads: { ...Count, description: "Threads being loaded now." },
    payloadFiles: { ...Count, description: "Large values stored for payload/read." },
    payloadBytes: { ...Count, description: "Their total size." },
    inactiveFactories: { ...Count, description: "Extension factories loaded but used by no thread." },
    uptimeMs: { ...Count, description: "Time since the server started." },
    listingFilesOpened: Type.Integer({ minimum: 0, description: "Cumulative transcript opens by listings, parent-header lookups included." }),
    listingBytesScanned: Type.Integer({ minimum: 0, description: "Cumulative transcript bytes scanned by listings." }),
    sandbox: Type.Object(
      {
        kind: Type.Union([Type.Literal("bwrap"), Type.Literal("seatbelt"), Type.Literal("none")], {
          description: "The sandbox this platform uses: bubblewrap on Linux, Seatbelt on macOS.",
        }),
        available: Type.Boolean({
          description:
            "Whether it can run here; without it sandboxed commands run under the approval rules alone, or are refused when sandbox.required is set.",
        }),
        reason: Type.Optional(Type.String({ description: "Why it cannot run, when it cannot." })),
      },
      { ...Closed, description: "The OS sandbox around the commands threads start for the model." },
    ),
  },
  Closed,
);

const ErrorNotification = Type.Object(
  {
    message: Type.String({ description: "What went wrong, for the user." }),
    kind: Type.Optional(Type.String({ description: "What went wrong: parseError, lineTooLong, unknownResponse, methodNotFound, or a turn error kind." })),
    threadId: Type.Optional(Type.String({ description: "The thread it concerns, when it concerns one." })),
    clientMessageId: Type.Optional(Type.String({ description: "The clientMessageId of the input the error is about." })),
  },
  Closed,
);

export const lifecycle = {
  clientRequests: {
    initialize: request({
      params: InitializeParams,
      result: InitializeResult,
      doc: "Opens the connection: answers serverInfo and platform. Send `initialized` after its result.",
    }),
    "server/diagnostics": request({
      params: EmptyObject,
      result: DiagnosticsResult,
      doc: "Memory, uptime and the shared server's counters.",
    }),
  },
  clientNotifications: {
    initialized: notification({
      params: EmptyObject,
      doc: "Sent once after the `initialize` result; other requests are refused until it arrives.",
    }),
  },
  serverNotifications: {
    error: notification({
      params: ErrorNotification,
      doc: "Something failed outside any request: a malformed line, an oversized line, a dropped queued input, a lost thread.",
    }),
    "serverRequest/cancelled": notification({
      params: Type.Object({ requestId: RequestId }, Closed),
      doc: "Withdraws a server request still waiting for its answer; an answer sent anyway is ignored.",
    }),
  },
} as const;
