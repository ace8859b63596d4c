export {
  AppServerClient,
  type ClientOptions,
  type HandlerErrorContext,
  type MessageTap,
  type RequestOptions,
  type ServerRequestContext,
  type TurnEvent,
  type TurnInput,
  type TurnRun,
  type WaitOptions,
} from "./client.js";
export { ReconnectingClient, type ReconnectingOptions, type ResumedThread } from "./reconnecting.js";
export { AppServerError, ClientError, type ClientErrorKind } from "./errors.js";
export { Listeners, LineFramer, decodeUtf8, type LineFramerOptions, type MessageTransport } from "@knightcode/app-server-protocol";
export { createMemoryTransportPair } from "./transports/memory.js";
export { SpawnedServerTransport, type SpawnTransportOptions } from "./transports/stdio.js";
export { WebSocketTransport, type WebSocketTransportOptions } from "./transports/websocket.js";
export { BrowserWebSocketTransport, tokenSubprotocol, type BrowserWebSocketOptions } from "./transports/browser-websocket.js";
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
