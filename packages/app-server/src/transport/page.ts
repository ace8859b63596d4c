import type { IncomingMessage, ServerResponse } from "node:http";
import { readFile, realpath, stat } from "node:fs/promises";
import { extname, join, sep } from "node:path";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

/**
 * The names a browser may use for a listener bound to `host`: a page loaded
 * under any other Host was reached through a name an attacker controls (DNS
 * rebinding), so requests naming one are refused.
 */
export function listenerAuthorities(host: string, port: number): string[] {
  const names = host.includes(":") ? [`[${host}]`] : [host];
  if (host === "127.0.0.1" || host === "::1") names.push("localhost");
  return names.map((name) => `${name}:${port}`);
}

/** The Host header of `request` when it names the listener itself, lowercased; undefined otherwise. */
export function ownAuthority(request: IncomingMessage, authorities: readonly string[]): string | undefined {
  const host = request.headers.host?.toLowerCase();
  return host !== undefined && authorities.includes(host) ? host : undefined;
}

/**
 * Headers on every answer: the page runs only its own code and talks only to
 * its own server. A page loaded under a name (`localhost`) may also reach the
 * listener's address, which is where it connects, since the listener's proof
 * can only name an address.
 */
function securityHeaders(authority: string, listenerAddress: string): Record<string, string> {
  const sockets = [...new Set([authority, listenerAddress])].map((name) => `ws://${name}`).join(" ");
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self' ${sockets}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return {
    "Content-Security-Policy": csp,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
  };
}

/**
 * The path segments a request names, or undefined for anything that could
 * leave the root or reach a hidden file: `..` raw or encoded, an encoded
 * slash or backslash, NUL, empty segments and dotfiles.
 */
export function pageSegments(rawUrl: string): string[] | undefined {
  const path = rawUrl.split(/[?#]/, 1)[0]!;
  if (!path.startsWith("/")) return undefined;
  if (path === "/") return ["index.html"];
  const segments: string[] = [];
  for (const raw of path.slice(1).split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === "" || segment.startsWith(".") || /[/\\\0]/.test(segment)) return undefined;
    segments.push(segment);
  }
  return segments;
}

/**
 * The file `segments` name under `root`, after symlinks are followed, when
 * it is a regular file still inside the root.
 */
async function fileInside(root: string, segments: readonly string[]): Promise<string | undefined> {
  try {
    const realRoot = await realpath(root);
    const real = await realpath(join(realRoot, ...segments));
    if (!real.startsWith(realRoot + sep)) return undefined;
    return (await stat(real)).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Answers plain HTTP requests with the files of `root`, read on each
 * request so a rebuilt page shows on reload. Only GET and HEAD; the caller
 * has already checked the Host. `authorities` are the listener's own, its
 * address first.
 */
export async function servePage(
  root: string,
  authority: string,
  request: IncomingMessage,
  response: ServerResponse,
  authorities: readonly string[],
): Promise<void> {
  const headers = securityHeaders(authority, authorities[0] ?? authority);
  const answer = (status: number, text: string, extra: Record<string, string> = {}) => {
    response.writeHead(status, { ...headers, ...extra, "Content-Type": "text/plain; charset=utf-8", "Content-Length": Buffer.byteLength(text) });
    response.end(request.method === "HEAD" ? undefined : text);
  };
  if (request.method !== "GET" && request.method !== "HEAD") return answer(405, "Method not allowed", { Allow: "GET, HEAD" });
  const segments = pageSegments(request.url ?? "");
  const file = segments && (await fileInside(root, segments));
  if (!file) return answer(404, "Not found");
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    return answer(404, "Not found");
  }
  const isIndex = segments!.length === 1 && segments![0] === "index.html";
  response.writeHead(200, {
    ...headers,
    "Content-Type": CONTENT_TYPES[extname(file).toLowerCase()] ?? "application/octet-stream",
    "Content-Length": body.length,
    // The index names the current bundle; the rest is revalidated so a rebuild is never mixed with an old index.
    "Cache-Control": isIndex ? "no-store" : "no-cache",
  });
  response.end(request.method === "HEAD" ? undefined : body);
}
