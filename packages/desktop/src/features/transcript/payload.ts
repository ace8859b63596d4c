import type { PayloadRef } from "@knightcode/app-server-protocol";
import type { Connection } from "../../connection/connection.js";

/** Reads a whole payload reference, chunk by chunk, and decodes it as UTF-8 text. */
export async function readWholePayload(c: Pick<Connection, "request">, ref: PayloadRef): Promise<string> {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (;;) {
    const answer = await c.request("payload/read", { id: ref.id, offset });
    chunks.push(decodeBase64(answer.data));
    if (answer.eof || answer.nextOffset === undefined) break;
    offset = answer.nextOffset;
  }
  // Chunks end at byte offsets, which may split a character: decode once, at the end.
  const whole = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(whole);
}

/** Base64 to bytes with the page's own atob: the page has no Buffer. */
export function decodeBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
