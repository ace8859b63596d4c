import type { TurnError } from "@knightcode/schema/threads";

/** How a failed turn is classified for the client, from the provider's error text. */
export type ErrorKind = TurnError["kind"];

export type { TurnError };

const RULES: [ErrorKind, RegExp][] = [
  [
    "contextOverflow",
    /context(?:[ _]length| window| size)|maximum context|too many tokens|prompt is too long|input is too long|exceeds? (?:the )?(?:model'?s? )?(?:maximum|context)|token limit|reduce the length/i,
  ],
  [
    "auth",
    /^(?:401|403)\b|unauthori[sz]ed|forbidden|invalid[ _-]?api[ _-]?key|incorrect api key|authenticat|permission denied|no credentials|not logged in|signed out|expired token|invalid x-api-key/i,
  ],
  ["rateLimit", /^429\b|rate[ _-]?limit|too many requests|quota|resource[ _-]exhausted|usage limit/i],
  [
    "network",
    /connection error|econnrefused|econnreset|etimedout|enotfound|eai_again|epipe|socket hang up|fetch failed|network|timed? ?out|stream stalled|terminated|premature close|other side closed/i,
  ],
  ["provider", /^5\d\d\b|internal server error|bad gateway|service unavailable|gateway timeout|overloaded|server error|upstream/i],
];

/** Classifies an error message; unknown texts are `other`. */
export function classifyError(message: string): ErrorKind {
  const text = message.trim();
  for (const [kind, pattern] of RULES) if (pattern.test(text)) return kind;
  return "other";
}

/** Errors worth retrying inside the same turn: the request may well succeed a moment later. */
export function isTransient(kind: ErrorKind): boolean {
  return kind === "rateLimit" || kind === "network" || kind === "provider";
}

/** Bounds a message for summaries and references; full payloads keep it whole. */
export function boundErrorMessage(message: string, max = 2000): string {
  return message.length <= max ? message : `${message.slice(0, max - 3)}...`;
}

/**
 * A failed turn's message. The words a broken connection leaves
 * ("terminated", "fetch failed") say nothing a user can act on, so they are
 * kept inside a sentence saying what broke, how often it was tried and what
 * to do; other kinds keep the provider's own words.
 */
export function turnFailureMessage(error: string, kind: ErrorKind, attempts: number, baseUrl?: string): string {
  if (kind !== "network") return error;
  const tried = attempts > 1 ? `, on all ${attempts} attempts` : "";
  const shown = baseUrl === undefined ? undefined : shownUrl(baseUrl);
  const at = shown ? ` at ${shown}` : "";
  return `Lost the connection to the model provider${at}${tried} (${error.trim().replace(/\.$/, "")}). Check the network and that the provider is reachable, then try again.`;
}

/**
 * A provider's base URL as a message may show it: scheme, host, port and
 * path only. A user name, password, query or fragment could carry a key,
 * so they are dropped; a URL that does not parse is not shown at all.
 */
export function shownUrl(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
}
