import { titleFromText } from "@knightcode/agent";

/** A thread's default name: the first line of its first message, bounded as listings bound titles. */
export function derivedName(firstUserText: string | undefined): string {
  return titleFromText(firstUserText ?? "");
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
