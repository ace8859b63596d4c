import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { WebSocket } from "ws";
import {
  CHALLENGE_SUBPROTOCOL_PREFIX,
  CLOSE_HANDSHAKE_TIMEOUT,
  CLOSE_UNAUTHORIZED,
  isNonce,
  newNonce,
  proofInput,
  type AuthorizedMessage,
  type ListenerProofMessage,
} from "@knightcode/app-server-client";

/** Prefix of the offered subprotocol that carries the token, base64url-encoded. */
export const BEARER_SUBPROTOCOL_PREFIX = "knightcode.bearer.";
/** How long a challenged connection has to send its proof. */
const PROOF_TIMEOUT_MS = 10_000;

/**
 * How an upgrade authenticates: the token itself (an Authorization header,
 * or a bearer subprotocol for browsers), or a challenge that asks this
 * listener to prove it holds the token before the client proves it back.
 */
export type UpgradeAuth = { kind: "bearer" } | { kind: "challenge"; clientNonce: string } | { kind: "none" };

export function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/**
 * Every bearer candidate is compared as a digest, in constant time; a wrong
 * one is refused even when a challenge is offered beside it.
 */
export function upgradeAuth(request: IncomingMessage, expected: Buffer): UpgradeAuth {
  const candidates = request.headers.authorization === undefined ? [] : [request.headers.authorization];
  let clientNonce: string | undefined;
  for (const offered of (request.headers["sec-websocket-protocol"] ?? "").split(",")) {
    const name = offered.trim();
    if (name.startsWith(CHALLENGE_SUBPROTOCOL_PREFIX) && isNonce(name.slice(CHALLENGE_SUBPROTOCOL_PREFIX.length))) {
      clientNonce = name.slice(CHALLENGE_SUBPROTOCOL_PREFIX.length);
    }
    if (!name.startsWith(BEARER_SUBPROTOCOL_PREFIX)) continue;
    const encoded = name.slice(BEARER_SUBPROTOCOL_PREFIX.length);
    candidates.push(/^[A-Za-z0-9_-]+$/.test(encoded) ? `Bearer ${Buffer.from(encoded, "base64url").toString("utf8")}` : "");
  }
  let ok = false;
  for (const candidate of candidates) ok = timingSafeEqual(digest(candidate), expected) || ok;
  if (ok) return { kind: "bearer" };
  if (candidates.length > 0 || clientNonce === undefined) return { kind: "none" };
  return { kind: "challenge", clientNonce };
}

function sign(token: string, input: string): string {
  return createHmac("sha256", token).update(input).digest("base64url");
}

export interface ProofOptions {
  token: string;
  /** This listener's address as the client reached it (the accepted socket's local address, or the socket path). */
  address: string;
  clientNonce: string;
}

/**
 * What `proveOnly` answers a launcher that offered `clientNonce`: the
 * launcher carries it precomputed, so it needs no cryptography of its own.
 */
export function launcherProof(token: string, address: string, clientNonce: string): string {
  return sign(token, proofInput("server", address, clientNonce, ""));
}

/**
 * Proves this listener holds the token, and leaves: for the desktop's
 * launcher, which only checks who listens before it hands the token to the
 * page. No server nonce, since no client proof follows.
 */
export function proveOnly(socket: WebSocket, options: ProofOptions): void {
  // A malformed frame from the page: nothing to keep, nothing to report.
  socket.on("error", () => socket.terminate());
  const proof: ListenerProofMessage = {
    type: "listener/proof",
    address: options.address,
    nonce: "",
    proof: launcherProof(options.token, options.address, options.clientNonce),
  };
  socket.send(JSON.stringify(proof));
  socket.close(1000);
}

/**
 * The server's side of the challenge: send this listener's proof, then take
 * the client's. `onAuthorized` runs inside the handler of the client's
 * proof, so a message the client sent right behind it reaches whatever
 * `onAuthorized` attaches. A wrong or late proof closes the socket.
 */
export function proveBothWays(socket: WebSocket, options: ProofOptions, onAuthorized: () => void): void {
  const serverNonce = newNonce();
  const expected = digest(sign(options.token, proofInput("client", options.address, options.clientNonce, serverNonce)));
  const finish = () => {
    clearTimeout(timer);
    socket.off("message", onMessage);
    socket.off("close", finish);
    socket.off("error", fail);
  };
  // A malformed frame before the proof: the connection never joined, so it just ends.
  const fail = () => {
    finish();
    socket.terminate();
  };
  const timer = setTimeout(() => {
    finish();
    socket.close(CLOSE_HANDSHAKE_TIMEOUT, "no proof in time");
  }, PROOF_TIMEOUT_MS);
  const onMessage = (data: Buffer, isBinary: boolean) => {
    finish();
    let proof: unknown;
    try {
      proof = isBinary ? undefined : (JSON.parse(data.toString()) as { type?: unknown; proof?: unknown });
    } catch {
      proof = undefined;
    }
    const candidate = proof as { type?: unknown; proof?: unknown } | undefined;
    const given = candidate?.type === "client/proof" && typeof candidate.proof === "string" ? candidate.proof : "";
    if (!timingSafeEqual(digest(given), expected)) return void socket.close(CLOSE_UNAUTHORIZED, "unauthorized");
    const authorized: AuthorizedMessage = { type: "authorized" };
    socket.send(JSON.stringify(authorized));
    onAuthorized();
  };
  socket.on("message", onMessage);
  socket.on("close", finish);
  socket.on("error", fail);
  const proof: ListenerProofMessage = {
    type: "listener/proof",
    address: options.address,
    nonce: serverNonce,
    proof: sign(options.token, proofInput("server", options.address, options.clientNonce, serverNonce)),
  };
  socket.send(JSON.stringify(proof));
}
