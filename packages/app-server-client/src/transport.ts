/**
 * A transport moves whole JSON-RPC messages as text, one message per call,
 * and knows nothing of methods. Both the client and the server side speak it.
 */
export interface MessageTransport {
  /** Queues one serialized message; never throws once the transport closed. */
  send(text: string): void;
  onMessage(listener: (text: string) => void): void;
  /** Called once, when the other side went away or `close` ran. */
  onClose(listener: (reason?: Error) => void): void;
  close(reason?: Error): void;
}
