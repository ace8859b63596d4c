import { closeSync, readSync } from "node:fs";
import { openRegularFileSync, readRegularFileSync } from "@knightcode/system/fs/regular-file";
import { parseFrontmatter, type Frontmatter } from "./frontmatter.js";

/** Listing needs only the header: a huge Markdown file is read no further than this. */
export const HEADER_READ_BYTES = 64 * 1024;

function readHead(path: string, bytes: number): string {
  const { fd } = openRegularFileSync(path);
  try {
    const buffer = Buffer.alloc(bytes);
    const read = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, read).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** The frontmatter of a Markdown file from its first 64 KiB; the body may be cut. */
export function readMarkdownHeader(path: string): Frontmatter {
  return parseFrontmatter(readHead(path, HEADER_READ_BYTES));
}

export function readMarkdownFile(path: string): Frontmatter {
  return parseFrontmatter(readRegularFileSync(path).toString("utf8"));
}

/** A short description from the first line of text, for templates that give none. */
export function firstLineSummary(body: string, max = 100): string | undefined {
  const line = body
    .split("\n")
    .map((l) => l.replace(/^#+\s*/, "").trim())
    .find((l) => l !== "" && l !== "---");
  if (line === undefined) return undefined;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
