import type { ImageContent } from "@mariozechner/pi-ai";
import type { TurnErrors } from "./errors.js";

/** The most inputs a thread holds waiting at once: queued ones and steers not yet delivered. */
export const MAX_WAITING_INPUTS = 100;
/** The most text (UTF-8) they hold together: every subscriber is sent all of it on each change. */
export const MAX_WAITING_TEXT_BYTES = 4 * 1024 * 1024;
/** The most image data (base64) they hold together, in the server's memory until they start. */
export const MAX_WAITING_IMAGE_BYTES = 256 * 1024 * 1024;

/** What waits on a thread, or what one input would add to it. */
export interface WaitingSize {
  inputs: number;
  textBytes: number;
  imageBytes: number;
}

export function sizeOf(text: string, images: readonly ImageContent[]): WaitingSize {
  let imageBytes = 0;
  for (const image of images) imageBytes += image.data.length;
  return { inputs: 1, textBytes: Buffer.byteLength(text, "utf8"), imageBytes };
}

/** Texts and image sizes together. */
export function sum(sizes: readonly WaitingSize[]): WaitingSize {
  return sizes.reduce((a, b) => ({ inputs: a.inputs + b.inputs, textBytes: a.textBytes + b.textBytes, imageBytes: a.imageBytes + b.imageBytes }), {
    inputs: 0,
    textBytes: 0,
    imageBytes: 0,
  });
}

/**
 * Refuses one more waiting input when the thread already holds the most it
 * may: one client cannot make every other client's queue updates, or the
 * server's memory, grow without end. The first input always fits; the
 * request's own limits bound it.
 */
export function requireRoom(waiting: WaitingSize, input: WaitingSize, errors: TurnErrors): void {
  if (waiting.inputs === 0) return;
  if (
    waiting.inputs + 1 <= MAX_WAITING_INPUTS &&
    waiting.textBytes + input.textBytes <= MAX_WAITING_TEXT_BYTES &&
    waiting.imageBytes + input.imageBytes <= MAX_WAITING_IMAGE_BYTES
  ) {
    return;
  }
  throw errors.refused(
    "invalidParams",
    `the thread's queue is full: at most ${MAX_WAITING_INPUTS} inputs, ${mib(MAX_WAITING_TEXT_BYTES)} of text and ${mib(MAX_WAITING_IMAGE_BYTES)} of images wait at once, queued and steering; try again once a turn has taken some`,
    { reason: "queueFull", maxInputs: MAX_WAITING_INPUTS, maxTextBytes: MAX_WAITING_TEXT_BYTES, maxImageBytes: MAX_WAITING_IMAGE_BYTES },
  );
}

function mib(bytes: number): string {
  return `${bytes / (1024 * 1024)} MiB`;
}
