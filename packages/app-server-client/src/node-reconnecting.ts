import { AppServerClient } from "./node-client.js";
import { readReadyFile } from "./ready-file.js";
import { ReconnectingClient as ReconnectingOverAnyTransport, type ReconnectingOptions, type ReconnectingPlatform } from "./reconnecting.js";

const NODE: ReconnectingPlatform = {
  connectWebSocket: (url, options) => AppServerClient.connectWebSocket({ ...options, url }),
  readReadyUrl: async (path) => readReadyFile(path).url,
};

/** The reconnecting client as Node uses it: a `ws` socket unless the options give a transport, and `readyFile`. */
export class ReconnectingClient extends ReconnectingOverAnyTransport {
  static override connect(options: ReconnectingOptions): Promise<ReconnectingClient> {
    return ReconnectingOverAnyTransport.connectOn(options, NODE);
  }
}
