import { signal } from "@preact/signals";
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
 * `refused`: the page's own server answers but will not take this token
 * (it restarted with a fresh one); `closed`: the page closed the connection.
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
    const client = await ReconnectingClient.connect({
      url,
      initialize: { clientInfo: CLIENT_INFO },
      connectTransport: (at) => connectOrExplain(at, token),
      retryDelaysMs: [100, 250, 500, 1000, 2000],
      requestTimeoutMs: 60_000,
    });
    const connection = new Connection(client);
    connectionState.value = "open";
    serverInfo.value = client.serverInfo;
    client.onDisconnect(() => (connectionState.value = "reconnecting"));
    client.onReconnect(() => {
      serverInfo.value = client.serverInfo;
      connectionState.value = "open";
    });
    void client.closed.then((reason) => {
      connectionState.value = reason instanceof ClientError && reason.kind === "unauthorized" ? "refused" : "closed";
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

function defaultUrl(): string {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}`;
}

/**
 * A page cannot read why an upgrade failed. When the socket fails but the
 * page's own server answers plain HTTP, the server is up and refused the
 * token: report `unauthorized`, so reconnecting stops instead of knocking forever.
 */
async function connectOrExplain(url: string, token: string): Promise<BrowserWebSocketTransport> {
  try {
    return await BrowserWebSocketTransport.connect({ url, token });
  } catch (error) {
    if (!(await pageServed())) throw error;
    // The server answers now: it refused the token, or it came up just after the first try (a restart).
    // Only a second refusal while it answers is the token's fault; that one stops the reconnecting for good.
    try {
      return await BrowserWebSocketTransport.connect({ url, token });
    } catch (again) {
      if (await pageServed()) throw new ClientError("unauthorized", "the server refused this page's token");
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
