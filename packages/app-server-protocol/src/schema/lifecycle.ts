import { Type } from "typebox";
import { Closed, EmptyObject, RequestId } from "./common.js";
import { notification, request } from "./define.js";

export const MAX_OPT_OUT_NOTIFICATIONS = 256;

const ClientInfo = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256 }),
    version: Type.Optional(Type.String({ maxLength: 256 })),
    title: Type.Optional(Type.String({ maxLength: 256 })),
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
});

const InitializeParams = Type.Object(
  {
    clientInfo: ClientInfo,
    capabilities: Type.Optional(ClientCapabilities),
  },
  Closed,
);

const InitializeResult = Type.Object(
  {
    serverInfo: Type.Object({ name: Type.String(), version: Type.String() }, Closed),
    platform: Type.Object(
      {
        os: Type.Union([Type.Literal("linux"), Type.Literal("darwin"), Type.Literal("win32")]),
        arch: Type.String(),
        homeDir: Type.String(),
      },
      Closed,
    ),
  },
  Closed,
);

const Count = Type.Integer({ minimum: 0 });

const DiagnosticsResult = Type.Object(
  {
    rssBytes: Count,
    heapBytes: Count,
    loadedThreads: Count,
    loadingThreads: Count,
    payloadFiles: Count,
    payloadBytes: Count,
    inactiveFactories: Count,
    uptimeMs: Count,
    listingFilesOpened: Type.Integer({ minimum: 0, description: "Cumulative transcript opens by listings, parent-header lookups included." }),
    listingBytesScanned: Type.Integer({ minimum: 0, description: "Cumulative transcript bytes scanned by listings." }),
  },
  Closed,
);

const ErrorNotification = Type.Object(
  {
    message: Type.String(),
    kind: Type.Optional(Type.String({ description: "What went wrong: parseError, lineTooLong, unknownResponse, methodNotFound, or a turn error kind." })),
    threadId: Type.Optional(Type.String()),
    clientMessageId: Type.Optional(Type.String()),
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
