import { signal } from "@preact/signals";
import { forgetToken, keepToken } from "./token.js";
import {
  BrowserWebSocketTransport,
  ClientError,
  ReconnectingClient,
  type RequestOptions,
  type ResumedThread,
  type ServerRequestContext,
} from "@knightcode/app-server-client/browser";
import type {
  ClientRequestMethod,
  ClientRequestParams,
  ClientRequestResult,
  InitializeResult,
  ServerNotificationMethod,
  ServerNotificationParams,
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResult,
} from "@knightcode/app-server-protocol";

/**
 * `refused`: the listener on the page's port does not hold this page's token
 * (the server restarted with a fresh one, or another program took the port),
 * or the server refused the page; `closed`: the page closed the connection.
 */
export type ConnectionState = "connecting" | "open" | "reconnecting" | "refused" | "closed";

export const connectionState = signal<ConnectionState>("connecting");
export const serverInfo = signal<InitializeResult | undefined>(undefined);

const CLIENT_INFO = { name: "knightcode-desktop", title: "KnightCode", version: "0.1.0" };

/** The one connection of the page: every feature talks to the server through it. */
export class Connection {
  private constructor(private readonly client: ReconnectingClient) {}

  static async open(token: string, url = defaultUrl()): Promise<Connection> {
    connectionState.value = "connecting";
    let client: ReconnectingClient;
    try {
      client = await ReconnectingClient.connect({
        url,
        // Held requests: a reload does not cancel what a thread asked; the reloaded page is asked again.
        // Sub-agents: an open thread's subscription also brings its sub-agents' notifications, for their cards.
        initialize: { clientInfo: CLIENT_INFO, capabilities: { holdRequests: true, subagents: true } },
        connectTransport: (at) => connectOrExplain(at, token),
        retryDelaysMs: [100, 250, 500, 1000, 2000],
        requestTimeoutMs: 60_000,
      });
    } catch (error) {
      if (refusedForGood(error)) forgetToken();
      throw error;
    }
    const connection = new Connection(client);
    connectionState.value = "open";
    serverInfo.value = client.serverInfo;
    client.onDisconnect(() => {
      forgetToken();
      connectionState.value = "reconnecting";
    });
    client.onReconnect(() => {
      keepToken(token);
      serverInfo.value = client.serverInfo;
      connectionState.value = "open";
    });
    void client.closed.then((reason) => {
      connectionState.value = refusedForGood(reason) ? "refused" : "closed";
    });
    return connection;
  }

  request<M extends ClientRequestMethod>(method: M, params: ClientRequestParams<M>, options?: RequestOptions): Promise<ClientRequestResult<M>> {
    return this.client.request(method, params, options);
  }

  /** Every registration returns the function that removes it. */
  on<M extends ServerNotificationMethod>(method: M, handler: (params: ServerNotificationParams<M>) => void): () => void {
    return this.client.onNotification(method, handler);
  }

  onAny(handler: (method: string, params: unknown) => void): () => void {
    return this.client.onAnyNotification(handler);
  }

  /** One handler per method; an approval or dialog still open after a reconnection is asked again and reaches it. */
  onRequest<M extends ServerRequestMethod>(
    method: M,
    handler: (params: ServerRequestParams<M>, context: ServerRequestContext) => ServerRequestResult<M> | Promise<ServerRequestResult<M>>,
  ): () => void {
    return this.client.onRequest(method, handler);
  }

  /** After a reconnection, with every open thread's fresh `thread/resume` answer. */
  onReconnect(listener: (resumed: ResumedThread[]) => void): () => void {
    return this.client.onReconnect(listener);
  }

  threadUi(threadId: string) {
    return this.client.threadUi(threadId);
  }

  async close(): Promise<void> {
    await this.client.close();
    connectionState.value = "closed";
  }
}

/**
 * Where the page's own server listens. The listener's proof names an
 * address, so a page loaded as `localhost` connects to 127.0.0.1, where
 * `knightcode desktop` listens.
 */
function defaultUrl(): string {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host.replace(/^localhost(?=:|$)/, "127.0.0.1")}`;
}

/** The server refused this page's proof, or the listener could not prove it holds the token: retrying will not help. */
function refusedForGood(reason: unknown): boolean {
  return reason instanceof ClientError && (reason.kind === "unauthorized" || reason.kind === "untrusted");
}

/**
 * The page never sends its token: the listener proves it holds the same one
 * first (`untrusted` when it cannot), then the page proves it back
 * (`unauthorized` when the server refuses that). A page cannot read why an
 * upgrade itself failed. When the socket fails but the
 * page's own server answers plain HTTP, the server is up and refused the
 * token: report `unauthorized`, so reconnecting stops instead of knocking forever.
 */
async function connectOrExplain(url: string, token: string): Promise<BrowserWebSocketTransport> {
  try {
    return await BrowserWebSocketTransport.connect({ url, token });
  } catch (error) {
    if (refusedForGood(error) || !(await pageServed())) throw error;
    // The server answers now: it refused the token, or it came up just after the first try (a restart).
    // Only a second refusal while it answers is the token's fault; that one stops the reconnecting for good.
    try {
      return await BrowserWebSocketTransport.connect({ url, token });
    } catch (again) {
      if (refusedForGood(again)) throw again;
      if (await pageServed()) throw new ClientError("unauthorized", "the server refused this page's connection");
      throw again;
    }
  }
}

/** Whether the server that serves this page answers: a WebSocket refused while it does was refused on purpose. */
function pageServed(): Promise<boolean> {
  return fetch("/", { method: "HEAD", cache: "no-store" }).then(
    (response) => response.ok,
    () => false,
  );
}

let current: Connection | undefined;

/** The page's connection; set once before the first render. */
export function conn(): Connection {
  if (!current) throw new Error("not connected yet");
  return current;
}

export function setConnection(connection: Connection): void {
  current = connection;
}
