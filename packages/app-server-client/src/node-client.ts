import type { MessageTransport } from "@knightcode/app-server-protocol";
import { AppServerClient as ClientOverAnyTransport } from "./client.js";
import type { ClientOptions } from "./client-options.js";
import { SpawnedServerTransport, type SpawnTransportOptions } from "./transports/stdio.js";
import { WebSocketTransport, type WebSocketTransportOptions } from "./transports/websocket.js";

/** The client as Node uses it: the browser entry's class, plus the factories that need Node. */
export class AppServerClient<T extends MessageTransport = MessageTransport> extends ClientOverAnyTransport<T> {
  /** Spawns `knightcode app-server` (or any compatible command) and talks over its stdio. */
  static spawn(options: SpawnTransportOptions & ClientOptions): AppServerClient<SpawnedServerTransport> {
    return new AppServerClient(new SpawnedServerTransport(options), options);
  }

  /** Connects to a server started with `--listen ws://127.0.0.1:<port>`. */
  static async connectWebSocket(options: WebSocketTransportOptions & ClientOptions): Promise<AppServerClient<WebSocketTransport>> {
    return new AppServerClient(await WebSocketTransport.connect(options), options);
  }
}
