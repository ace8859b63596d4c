import type { AgentTool } from "@mariozechner/pi-agent-core";
import { Type, type Static } from "typebox";
import { sliceChars } from "./format.js";
import { ToolError, throwIfAborted } from "./errors.js";
import { WEBSEARCH, WEBSEARCH_PROVIDERS, type WebSearchProvider } from "./managed-tools.js";
import { readToolsFile, toolEntry } from "./tools-json.js";

const DEFAULT_COUNT = 5;
const MAX_COUNT = 10;
const MAX_QUERY_LENGTH = 400;
const MAX_SNIPPET_CHARS = 400;
const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 15_000;

const webSearchParameters = Type.Object({
  query: Type.String({ minLength: 1, maxLength: MAX_QUERY_LENGTH, description: "What to search for, as you would type it into a search engine." }),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_COUNT, description: `How many results to return (default ${DEFAULT_COUNT}).` })),
});

export type WebSearchParams = Static<typeof webSearchParameters>;

export interface WebSearchDetails {
  provider: WebSearchProvider;
  count: number;
}

const DESCRIPTION = `Search the web. Returns up to ${MAX_COUNT} results (${DEFAULT_COUNT} by default), each with its title, URL and a short snippet. \
The query leaves this machine for the configured search provider: never put secrets or private code in it.`;

const ENDPOINTS: Record<WebSearchProvider, { base: string; path: string }> = {
  brave: { base: "https://api.search.brave.com", path: "/res/v1/web/search" },
  tavily: { base: "https://api.tavily.com", path: "/search" },
};

export interface WebSearchOptions {
  /** Where tools.json is; read at every call, so a key set meanwhile is used at once. */
  agentDir: string;
}

interface SearchConfig {
  provider: WebSearchProvider;
  key: string;
  endpoint: URL;
}

interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

function settingOf(entry: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = entry?.[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The provider, key and endpoint tools.json names now; a tool error saying what to set when something is missing. */
function searchConfig(agentDir: string): SearchConfig {
  const file = readToolsFile(agentDir);
  if (file.exists && file.value === undefined && file.gate.state === "broken") {
    throw new ToolError(
      "notAvailable",
      `websearch cannot read its settings: ${file.path} is not a valid tools.json; fix it or set the settings again with tool/settings/write.`,
    );
  }
  const entry = toolEntry(file, WEBSEARCH.name);
  const named = settingOf(entry, "provider") ?? "brave";
  if (!(WEBSEARCH_PROVIDERS as readonly string[]).includes(named)) {
    throw new ToolError("notAvailable", `websearch's provider ${JSON.stringify(named)} is not one it knows (${WEBSEARCH_PROVIDERS.join(", ")}).`);
  }
  const provider = named as WebSearchProvider;
  const keyName = `${provider}Key`;
  const key = settingOf(entry, keyName);
  if (key === undefined) {
    throw new ToolError(
      "notAvailable",
      `websearch has no API key for ${provider}; set it with tool/settings/write {"name": "websearch", "key": "${keyName}", "value": "<your key>"}. No search was made.`,
    );
  }
  const { base, path } = ENDPOINTS[provider];
  const baseUrl = settingOf(entry, "baseUrl") ?? base;
  let endpoint: URL;
  try {
    endpoint = new URL(baseUrl.replace(/\/+$/, "") + path);
  } catch {
    throw new ToolError("notAvailable", `websearch's baseUrl ${JSON.stringify(baseUrl)} is not a URL.`);
  }
  return { provider, key, endpoint };
}

/** Whatever a provider or the network says goes to the model only once the key is cut out of it. */
function scrub(text: string, key: string): string {
  return text.split(key).join("••••");
}

/** Search snippets carry highlighting markup and entities; the model gets plain text on one line. */
function plain(text: unknown): string {
  if (typeof text !== "string") return "";
  const stripped = text
    .replace(/<[^>]*>/g, "")
    .replace(
      /&(amp|lt|gt|quot|#39|apos|nbsp);/g,
      (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", apos: "'", nbsp: " " })[name] ?? "",
    )
    .replace(/\s+/g, " ")
    .trim();
  return stripped.length > MAX_SNIPPET_CHARS ? `${sliceChars(stripped, MAX_SNIPPET_CHARS)}…` : stripped;
}

function request(config: SearchConfig, query: string, count: number): { url: URL; init: RequestInit } {
  if (config.provider === "brave") {
    const url = new URL(config.endpoint);
    url.searchParams.set("q", query);
    url.searchParams.set("count", String(count));
    return { url, init: { method: "GET", headers: { accept: "application/json", "x-subscription-token": config.key } } };
  }
  return {
    url: config.endpoint,
    init: {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json", authorization: `Bearer ${config.key}` },
      body: JSON.stringify({ query, max_results: count, search_depth: "basic" }),
    },
  };
}

function resultsOf(provider: WebSearchProvider, body: unknown): SearchResult[] {
  const list = provider === "brave" ? (body as { web?: { results?: unknown } } | null)?.web?.results : (body as { results?: unknown } | null)?.results;
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new ToolError("commandFailed", `websearch: ${provider} answered in a shape it does not know.`);
  return list.flatMap((item: Record<string, unknown> | null) => {
    if (typeof item !== "object" || item === null || typeof item.url !== "string") return [];
    return [{ title: plain(item.title) || item.url, url: item.url, snippet: plain(provider === "brave" ? item.description : item.content) }];
  });
}

/** The body as text, refusing more than a search answer could need. */
async function boundedText(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MAX_RESPONSE_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new ToolError("tooLarge", `websearch: the answer was larger than ${MAX_RESPONSE_BYTES / (1024 * 1024)} MiB.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function format(query: string, results: SearchResult[]): string {
  if (results.length === 0) return `No results for ${JSON.stringify(query)}.`;
  return results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}${r.snippet ? `\n   ${r.snippet}` : ""}`).join("\n\n");
}

async function search(config: SearchConfig, query: string, count: number, signal: AbortSignal | undefined): Promise<SearchResult[]> {
  const { url, init } = request(config, query, count);
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...init, redirect: "error", signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    text = await boundedText(response);
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throwIfAborted(signal);
    if (timeout.aborted) throw new ToolError("timedOut", `websearch: ${config.provider} did not answer within ${REQUEST_TIMEOUT_MS / 1000} seconds.`);
    const cause = (error as { cause?: { message?: unknown } }).cause?.message;
    const why = typeof cause === "string" ? cause : (error as Error).message;
    throw new ToolError("commandFailed", scrub(`websearch could not reach ${url.host}: ${why}`, config.key));
  }
  if (!response.ok) {
    const said = sliceChars(plain(text), 200);
    const hint = response.status === 401 || response.status === 403 ? ` Check websearch's ${config.provider}Key.` : "";
    throw new ToolError("commandFailed", scrub(`websearch: ${config.provider} answered HTTP ${response.status}${said ? `: ${said}` : ""}.${hint}`, config.key));
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ToolError("commandFailed", `websearch: ${config.provider} answered with something other than JSON.`);
  }
  return resultsOf(config.provider, body).slice(0, count);
}

/**
 * The `websearch` tool: one query to the search provider tools.json names,
 * answered as a compact list. A thread registers it only while tools.json
 * switches it on. The key goes only into the request's header and is cut
 * out of anything the provider or the network says back.
 */
export function createWebSearchTool(options: WebSearchOptions): AgentTool<typeof webSearchParameters, WebSearchDetails> {
  return {
    name: "websearch",
    label: "Web search",
    description: DESCRIPTION,
    parameters: webSearchParameters,
    executionMode: "parallel",
    execute: async (_toolCallId, params, signal) => {
      throwIfAborted(signal);
      const config = searchConfig(options.agentDir);
      const count = params.count ?? DEFAULT_COUNT;
      const results = await search(config, params.query, count, signal);
      return {
        content: [{ type: "text", text: scrub(format(params.query, results), config.key) }],
        details: { provider: config.provider, count: results.length },
      };
    },
  };
}
