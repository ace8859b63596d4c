export { AppServerClient } from "./node-client.js";
export type {
  ClientOptions,
  HandlerErrorContext,
  MessageTap,
  RequestOptions,
  ServerRequestContext,
  TurnEvent,
  TurnInput,
  TurnOptions,
  TurnRequest,
  TurnRequestEvent,
  TurnRun,
  TurnRunFor,
  InterceptedRequest,
  RequestInterceptor,
  WaitOptions,
} from "./client.js";
export { ReconnectingClient } from "./node-reconnecting.js";
export type { ReconnectingOptions, ResumedThread } from "./reconnecting.js";
export { AppServerError, ClientError, type ClientErrorKind } from "./errors.js";
export { isInlineItem, isItemReference, isToolApproval } from "./narrowing.js";
// The protocol's types a client needs, so that a client imports one package.
export { ERROR_CODES, isErrorCode } from "@knightcode/app-server-protocol";
export type {
  AnyServerNotification,
  ApprovalDecision,
  ApprovalInput,
  ApprovalRequest,
  ApprovalResponse,
  BuiltinTool,
  BuiltinToolInputs,
  ClientNotificationMethod,
  ClientNotificationParams,
  ClientRequestMethod,
  ClientRequestParams,
  ClientRequestResult,
  Dialog,
  DialogKind,
  DialogResponse,
  ErrorCode,
  ErrorData,
  ErrorDataByCode,
  HistoryItem,
  Item,
  ItemOf,
  ItemReference,
  ItemType,
  RequestId,
  ServerNotificationMethod,
  ServerNotificationParams,
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResult,
  Thread,
  ThreadStatus,
  ThreadSummary,
  ToolApprovalRequest,
  ToolCallStatus,
  Turn,
  TurnError,
  TurnErrorKind,
  TurnStatus,
  UserInputRequest,
  UserInputResponse,
  Warning,
  WireError,
} from "@knightcode/app-server-protocol";
export { Listeners, LineFramer, decodeUtf8, type LineFramerOptions, type MessageTransport } from "@knightcode/app-server-protocol";
export { createMemoryTransportPair } from "./transports/memory.js";
export { SpawnedServerTransport, type SpawnTransportOptions } from "./transports/stdio.js";
export { WebSocketTransport, type WebSocketTransportOptions } from "./transports/websocket.js";
export { BrowserWebSocketTransport, browserAddress, tokenSubprotocol, type BrowserWebSocketOptions } from "./transports/browser-websocket.js";
export { readReadyFile, localUrlProblem, type ReadyFile } from "./ready-file.js";
export { isLoopbackHost, privateFolderProblem, readOwnedFile, sharedFolderProblem, type OwnedRead, type OwnerOptions } from "./local/owned-paths.js";
export {
  challengeSubprotocol,
  ClientProofHandshake,
  CHALLENGE_SUBPROTOCOL_PREFIX,
  CLOSE_HANDSHAKE_TIMEOUT,
  CLOSE_UNAUTHORIZED,
  isNonce,
  newNonce,
  proofInput,
  tcpAddress,
  unixAddress,
  type AuthorizedMessage,
  type ClientProofMessage,
  type ListenerProofMessage,
  type ProofStep,
} from "./listener-proof.js";
export {
  readPayload,
  resolveItem,
  resolveTurn,
  PayloadReadError,
  type PayloadReadErrorKind,
  type PayloadRef,
  type ReadPayloadOptions,
  type ResolvedItem,
  type ResolvedTurn,
  type WireItem,
  type WireTurn,
} from "./payloads.js";
