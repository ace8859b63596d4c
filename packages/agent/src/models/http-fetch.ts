import { type Agent, type ClientRequest, Agent as HttpAgent, type IncomingMessage, request as httpRequest } from "node:http";
import type { Readable } from "node:stream";
import { HeaderFields } from "./http-headers.js";
import { HttpResponse, ModelBody } from "./http-response.js";
import type { Transport } from "./providers.js";

/** Both agents' options: a connection kept for the next request may sit unused 15 s (less when the server's keep-alive hint says so). */
const AGENT_OPTIONS = { keepAlive: true, timeout: 15_000, scheduling: "lifo" } as const;
/** As `fetch`: more redirects than this fail the request. */
const MAX_REDIRECTS = 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers a redirect to another origin drops, as `fetch` does. */
const CREDENTIAL_HEADERS = ["authorization", "proxy-authorization", "cookie"];

type Body = string | Uint8Array | undefined;

/** One request as this transport sends it; anything it cannot say this way goes to the global `fetch`. */
interface Plain {
  url: URL;
  method: string;
  headers: HeaderFields;
  body: Body;
  signal: AbortSignal | undefined;
}

type FetchInput = string | URL | Request;

/**
 * The `fetch` the bundled OpenAI and Anthropic SDKs use for model requests
 * (scripts/lib/sdk-http.mjs puts it in place of the global one), on
 * `node:http` and `node:https`. Node's built-in `fetch` loads undici and
 * compiles its HTTP parser to WebAssembly on the first request, about
 * 15 MiB that a process hosting every thread then keeps, while Node's own
 * parser is already there. A connection is kept for the next request to
 * the same server, for up to 15 s, or less when the server announces less.
 *
 * It does what the SDKs ask of `fetch`, as `fetch` does it: a string or
 * bytes body, redirects followed (credentials dropped across origins),
 * gzip, deflate and brotli bodies decoded, an abort signal that stops the
 * request or the body, network failures as `TypeError("fetch failed")`
 * with the cause. A request it does not take (a `Request` object, a
 * streamed or form body, another scheme, a URL with credentials, undici's
 * own options) goes to the global `fetch` unchanged.
 */
export function modelFetch(input: FetchInput, init?: RequestInit): Promise<Response> {
  const plain = plainRequest(input, init);
  if (plain === undefined) return fetch(input, init);
  if (plain.signal?.aborted) return Promise.reject(plain.signal.reason);
  return follow(plain) as unknown as Promise<Response>;
}

/** The request as a `Plain` one; undefined when this transport leaves it to `fetch`. */
function plainRequest(input: FetchInput, init: RequestInit | undefined): Plain | undefined {
  if (typeof input !== "string" && !(input instanceof URL)) return undefined;
  const { method, headers, body, signal, redirect, ...rest } = (init ?? {}) as RequestInit & Record<string, unknown>;
  for (const key of Object.keys(rest)) if (!IGNORED_OPTIONS.has(key) && rest[key] !== undefined) return undefined;
  if (redirect !== undefined && redirect !== "follow") return undefined;
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  // `fetch` refuses a URL with credentials in it, where Node's client would send them as Basic auth.
  if (url.username !== "" || url.password !== "") return undefined;
  const bytes = bodyOf(body);
  if (bytes === null) return undefined;
  const fields = headerFields(headers);
  if (fields === undefined) return undefined;
  return { url, method: (method ?? "GET").toUpperCase(), headers: fields, body: bytes, signal: signal ?? undefined };
}

/** Options of `fetch` that change nothing for a request of this transport. */
const IGNORED_OPTIONS = new Set(["duplex", "keepalive", "mode", "credentials", "cache", "referrer", "referrerPolicy", "integrity", "priority", "window"]);

/** A body this transport sends as it is; null for one it leaves to `fetch`. */
function bodyOf(body: unknown): Body | null {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  return null;
}

/** The header fields of a `Headers`, a list of pairs or a record; undefined for anything else. */
function headerFields(headers: unknown): HeaderFields | undefined {
  const fields = new HeaderFields();
  if (headers === undefined || headers === null) return fields;
  if (typeof headers !== "object") return undefined;
  const pairs: Iterable<unknown> = Symbol.iterator in headers ? (headers as Iterable<unknown>) : Object.entries(headers);
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2) return undefined;
    fields.append(String(pair[0]), String(pair[1]));
  }
  return fields;
}

/** Sends the request, following redirects as `fetch` does. */
async function follow(first: Plain): Promise<HttpResponse> {
  let request = first;
  for (let redirects = 0; ; redirects++) {
    const message = await sendOnce(request);
    const location = message.headers.location;
    if (!REDIRECTS.has(message.statusCode ?? 0) || location === undefined) return respond(message, request, redirects > 0);
    message.resume();
    message.destroy();
    if (redirects === MAX_REDIRECTS) throw new TypeError("fetch failed", { cause: new Error("redirect count exceeded") });
    request = redirected(request, message.statusCode as number, location);
  }
}

/** The request a redirect asks for: GET without a body after a 303, or a 301/302 of a POST; credentials kept only within the origin. */
function redirected(request: Plain, status: number, location: string): Plain {
  let url: URL;
  try {
    url = new URL(location, request.url);
  } catch (error) {
    throw new TypeError("fetch failed", { cause: error });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new TypeError("fetch failed", { cause: new Error(`a redirect to ${url.protocol} is not followed`) });
  const headers = new HeaderFields(request.headers);
  if (url.origin !== request.url.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
  const toGet = status === 303 ? request.method !== "HEAD" : (status === 301 || status === 302) && request.method === "POST";
  if (!toGet) return { ...request, url, headers };
  for (const name of [...headers.keys()]) if (name.startsWith("content-")) headers.delete(name);
  return { ...request, url, headers, method: "GET", body: undefined };
}

/** Sends once; a failure before the answer's head is `fetch`'s. Never sent twice: a server that dropped the connection may have taken it. */
async function sendOnce(request: Plain): Promise<IncomingMessage> {
  try {
    return await send(request);
  } catch (error) {
    throw request.signal?.aborted ? request.signal.reason : new TypeError("fetch failed", { cause: error });
  }
}

/** One exchange: resolves with the response's head, its body not read yet. */
async function send({ url, method, headers, body, signal }: Plain): Promise<IncomingMessage> {
  const secure = url.protocol === "https:";
  const outgoing: Record<string, string> = { accept: "*/*", ...Object.fromEntries(headers) };
  if (body !== undefined) outgoing["content-length"] = String(Buffer.byteLength(body));
  const open = secure ? (await import("node:https")).request : httpRequest;
  const agent = secure ? await httpsAgent() : httpAgent();
  return new Promise<IncomingMessage>((resolve, reject) => {
    let settled = false;
    const onAbort = () => request.destroy(signal?.reason);
    const done = (error?: unknown) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      if (error !== undefined) reject(error);
    };
    const request: ClientRequest = open(url, { method, headers: outgoing, agent }, (message) => {
      done();
      resolve(message);
    });
    // Kept for the request's life: an error after the head reaches the body through the message instead.
    request.on("error", (error) => done(error));
    // The signal may have fired while https loaded.
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    request.end(body);
  });
}

/** The `fetch` response over a message whose head arrived; the abort signal now stops its body. */
async function respond(message: IncomingMessage, request: Plain, redirected: boolean): Promise<HttpResponse> {
  const status = message.statusCode ?? 0;
  const headers = HeaderFields.fromRaw(message.rawHeaders);
  const empty = request.method === "HEAD" || status === 204 || status === 304;
  const url = request.url.href;
  if (empty) {
    message.resume();
    return new HttpResponse(status, message.statusMessage ?? "", headers, url, redirected, null);
  }
  const { signal } = request;
  if (signal?.aborted) {
    message.destroy();
    throw signal.reason;
  }
  const onAbort = () => message.destroy(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  const decoded = await decoding(message, headers.get("content-encoding"));
  const body = new ModelBody(message, decoded, signal, () => signal?.removeEventListener("abort", onAbort));
  return new HttpResponse(status, message.statusMessage ?? "", headers, url, redirected, body);
}

/** The body's bytes as sent before encoding; the message itself when it is not encoded, or in a coding this does not know. */
async function decoding(message: IncomingMessage, coding: string | null): Promise<Readable> {
  const name = coding?.trim().toLowerCase();
  if (name !== "gzip" && name !== "x-gzip" && name !== "deflate" && name !== "br") return message;
  const zlib = await import("node:zlib");
  const decoder = name === "br" ? zlib.createBrotliDecompress() : name === "deflate" ? zlib.createInflate() : zlib.createGunzip();
  message.pipe(decoder);
  return decoder;
}

let plainAgent: Agent | undefined;
let secureAgent: Promise<Agent> | undefined;

function httpAgent(): Agent {
  plainAgent ??= new HttpAgent(AGENT_OPTIONS);
  return plainAgent;
}

/** Loaded with the first https request, or by prepareSecure: TLS costs memory a local model never needs. */
function httpsAgent(): Promise<Agent> {
  secureAgent ??= import("node:https").then(({ Agent: HttpsAgent }) => new HttpsAgent(AGENT_OPTIONS));
  return secureAgent;
}

let secureReady = false;

/**
 * Makes ready, without connecting anywhere, what a process's first request
 * to an https server waits for before its handshake can begin: Node's TLS
 * modules and, for this transport, its https agent; and the store of
 * trusted certificates every secure connection verifies against, which
 * Node builds at its first secure context (about 20 ms, unless
 * NODE_EXTRA_CA_CERTS made it build the store at start). The global
 * `fetch` shares the store.
 */
export async function prepareSecure(transport: Exclude<Transport, "none">): Promise<void> {
  if (transport === "modelFetch") await httpsAgent();
  (await import("node:tls")).createSecureContext();
  secureReady = true;
}

/** Whether prepareSecure ran in this process. */
export function secureTransportPrepared(): boolean {
  return secureReady;
}

/** Whether `value` is a `FormData`, told by its tag: the global `FormData` is undici's, and naming it loads undici. */
export function isFormData(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.prototype.toString.call(value) === "[object FormData]";
}
