import { AppServerClient, createMemoryTransportPair, type ClientOptions } from "@knightcode/app-server-client";
import type { AppServer } from "./server.js";
import { asServerTransport } from "./transport/types.js";

/**
 * Connects a client to a server in the same process over an in-memory
 * transport: the same messages, framing aside, as a spawned server.
 */
export function createInProcessClient(server: AppServer, options: ClientOptions = {}): AppServerClient {
  const [clientEnd, serverEnd] = createMemoryTransportPair();
  server.connect(asServerTransport(serverEnd), "memory");
  return new AppServerClient(clientEnd, options);
}
