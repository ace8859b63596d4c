import { hash } from "node:crypto";

/**
 * A hunk id names the read it came from: `c<context>-<hash>`, or
 * `w<context>-<hash>` for a read that ignored whitespace. The hash covers
 * the file's header (paths, modes, blob ids) and the hunk's bytes, so any
 * change to the file gives every hunk of it a new id. Carrying the context
 * lets a review comment find its hunk again without trying every context;
 * a `w` id is never produced by the reads actions make, so it matches no
 * action.
 */
const HUNK_ID = /^([cw])(\d{1,3})-([0-9a-f]{24})$/;

export interface FileIdentity {
  oldPath: string;
  newPath: string;
  oldMode: string;
  newMode: string;
  oldBlob: string;
  newBlob: string;
}

export interface ReadShape {
  context: number;
  ignoreWhitespace: boolean;
}

/** Where a hunk's hashed bytes are put together; a larger hunk gets a buffer of its own, not kept. */
const scratch = Buffer.allocUnsafe(64 * 1024);

export function hunkId(shape: ReadShape, file: FileIdentity, hunk: Buffer): string {
  const header = `${file.oldPath}\0${file.newPath}\0${file.oldMode}\0${file.newMode}\0${file.oldBlob}\0${file.newBlob}\0`;
  const headerBytes = Buffer.byteLength(header);
  const size = headerBytes + hunk.length;
  const bytes = size <= scratch.length ? scratch : Buffer.allocUnsafe(size);
  bytes.write(header, 0);
  hunk.copy(bytes, headerBytes);
  // One call, no hash object: a read of thousands of hunks makes thousands of ids.
  const digest = hash("sha1", bytes.subarray(0, size), "hex");
  return `${shape.ignoreWhitespace ? "w" : "c"}${shape.context}-${digest.slice(0, 24)}`;
}

/** The read a hunk id came from, or undefined when it is not one of ours. */
export function parseHunkId(id: string): ReadShape | undefined {
  const match = HUNK_ID.exec(id);
  if (!match) return undefined;
  return { context: Number(match[2]), ignoreWhitespace: match[1] === "w" };
}

/** Whether an action (revert, stage, unstage) at `context` can take this id: no whitespace-blind or zero-context read's id can. */
export function actionable(id: string, context: number): boolean {
  const shape = parseHunkId(id);
  return shape !== undefined && !shape.ignoreWhitespace && shape.context === context && context > 0;
}
