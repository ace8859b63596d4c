import type { Writable } from "node:stream";

export interface ProtocolOutput {
  /** The real stdout stream, for its buffer size and events. */
  stream: Writable;
  write(text: string, done?: (error?: Error | null) => void): boolean;
}

let claimed: ProtocolOutput | undefined;

/**
 * Takes stdout for the protocol and points every other writer at stderr:
 * `console.log`, `process.stdout.write` from an extension or a dependency.
 * Call it before anything else runs; later calls return the same output.
 */
export function claimStdout(): ProtocolOutput {
  if (claimed) return claimed;
  const stream = process.stdout;
  const realWrite = stream.write.bind(stream) as (chunk: string, cb?: (error?: Error | null) => void) => boolean;
  const toStderr = process.stderr.write.bind(process.stderr);
  stream.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) =>
    toStderr(chunk as string, encoding as BufferEncoding, cb as () => void)) as typeof stream.write;
  claimed = { stream, write: (text, done) => realWrite(text, done) };
  return claimed;
}
