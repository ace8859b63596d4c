// What a web page needs: the client, reconnection, errors and the browser's
// WebSocket transport. Nothing here reaches a Node module (the page build
// refuses one): the spawn and `ws` factories live in the Node entry's
// subclasses, node-client.ts and node-reconnecting.ts.
export {
  AppServerClient,
  type ClientOptions,
  type RequestOptions,
  type ServerRequestContext,
  type TurnInput,
  type TurnRun,
  type WaitOptions,
} from "./client.js";
export { ReconnectingClient, type ReconnectingOptions, type ResumedThread } from "./reconnecting.js";
export { AppServerError, ClientError, type ClientErrorKind } from "./errors.js";
export { Listeners, type MessageTransport } from "@knightcode/app-server-protocol";
export {
  BrowserWebSocketTransport,
  browserAddress,
  SUBPROTOCOL,
  TOKEN_SUBPROTOCOL_PREFIX,
  tokenSubprotocol,
  type BrowserSocket,
  type BrowserSocketClass,
  type BrowserWebSocketOptions,
} from "./transports/browser-websocket.js";
