/**
 * The listener's proof: how a client learns that the listener it reached
 * holds its token before it gives anything away, and then proves that it
 * holds the token too, without ever sending it. Runs in Node and in a page
 * (WebCrypto); the server computes the same values with node:crypto.
 *
 * Each proof is an HMAC-SHA256 keyed by the token over a label, the address
 * the connection reached as each side sees it, the client's nonce and the
 * server's nonce. The address is what stops a relay: a listener on another
 * port (or on ::1 beside 127.0.0.1) that passes the bytes on to the real
 * server gets a proof for the real server's address, which the client,
 * checking the address it connected to, refuses.
 */

/** Offered with the client's nonce instead of a bearer token: "prove yourself first". */
export const CHALLENGE_SUBPROTOCOL_PREFIX = "knightcode.challenge.";
/** The subprotocol a client offers with `knightcode` to ask for the listener's proof. */
export function challengeSubprotocol(clientNonce: string): string {
  return CHALLENGE_SUBPROTOCOL_PREFIX + clientNonce;
}

/** Close code for a client proof the server refused (a browser can read codes of 4000 and above). */
export const CLOSE_UNAUTHORIZED = 4401;
/** Close code for a handshake that did not finish in time. */
export const CLOSE_HANDSHAKE_TIMEOUT = 4408;

const SERVER_LABEL = "knightcode listener proof v1";
const CLIENT_LABEL = "knightcode client proof v1";

/** The server's first message on a challenged connection. */
export interface ListenerProofMessage {
  type: "listener/proof";
  /** The address the server says it is bound on; informative only, each side checks its own view. */
  address: string;
  /** The server's nonce, for the client's proof; empty on a proof-only (launcher) connection. */
  nonce: string;
  proof: string;
}

/** The client's answer once it checked the listener's proof. */
export interface ClientProofMessage {
  type: "client/proof";
  proof: string;
}

/** The server took the client's proof: JSON-RPC starts with the next message. */
export interface AuthorizedMessage {
  type: "authorized";
}

/** `host:port`, with an IPv6 host in brackets: both sides write an address this way before it is signed. */
export function tcpAddress(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A Unix socket's address as both sides sign it: its absolute path, folder symlinks resolved. */
export function unixAddress(path: string): string {
  return `unix:${path}`;
}

/** What each proof signs: label, address and both nonces, one per line. */
export function proofInput(role: "server" | "client", address: string, clientNonce: string, serverNonce: string): string {
  return [role === "server" ? SERVER_LABEL : CLIENT_LABEL, address, clientNonce, serverNonce].join("\n");
}

/** A fresh nonce: 32 random bytes, base64url. */
export function newNonce(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return base64url(bytes);
}

/** Whether `text` is a nonce as `newNonce` makes them (a server refuses anything else before it signs). */
export function isNonce(text: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(text);
}

export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** HMAC-SHA256 of `input` keyed by the token's UTF-8 bytes, base64url, through WebCrypto. */
export async function hmac(token: string, input: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", encoder.encode(token), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return base64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(input))));
}

/** Compares without stopping at the first difference. */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

export type ProofStep = { kind: "send"; text: string } | { kind: "authorized" } | { kind: "refused"; message: string };

/**
 * The client's side of the handshake, one server message at a time: the
 * listener's proof (checked against the address this client reached) gets
 * the client's proof back; `authorized` ends it. Anything else refuses the
 * listener, and the token never left this side.
 */
export class ClientProofHandshake {
  private serverNonce: string | undefined;

  constructor(
    private readonly token: string,
    private readonly address: string,
    readonly clientNonce: string = newNonce(),
  ) {}

  async receive(text: string): Promise<ProofStep> {
    let message: Partial<ListenerProofMessage | AuthorizedMessage>;
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return this.refuse("answered with something that is not a KnightCode handshake");
    }
    if (this.serverNonce === undefined) {
      const proof = message as Partial<ListenerProofMessage>;
      if (proof.type !== "listener/proof" || typeof proof.proof !== "string" || typeof proof.nonce !== "string" || !isNonce(proof.nonce)) {
        return this.refuse("answered without a listener proof");
      }
      const expected = await hmac(this.token, proofInput("server", this.address, this.clientNonce, proof.nonce));
      if (!sameText(proof.proof, expected)) return this.refuse("did not prove that it holds this token");
      this.serverNonce = proof.nonce;
      const answer: ClientProofMessage = {
        type: "client/proof",
        proof: await hmac(this.token, proofInput("client", this.address, this.clientNonce, proof.nonce)),
      };
      return { kind: "send", text: JSON.stringify(answer) };
    }
    if (message.type === "authorized") return { kind: "authorized" };
    return this.refuse("answered the client proof with something else");
  }

  private refuse(why: string): ProofStep {
    return {
      kind: "refused",
      message: `the listener at ${this.address} ${why}: it is not the server this token belongs to (another server, or another user's listener on that address); the token was not sent`,
    };
  }
}
