import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import type { AgentTool } from "@mariozechner/pi-agent-core";
import type { FileHandle } from "node:fs/promises";
import { Type, type Static } from "typebox";
import { displayPath, resolveToolPath, type ToolContext } from "./context.js";
import { openRegularFile } from "@knightcode/system/fs/regular-file";
import { CredentialFiles } from "./credential-files.js";
import { NotRegularFileError } from "@knightcode/system/fs/regular-file";
import { errnoCode, fileSystemError, throwIfAborted, ToolError } from "./errors.js";
import { formatBytes, MAX_LINE_CHARS, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES } from "./format.js";
import { IMAGE_SNIFF_BYTES, imageMimeType, type ImageMimeType } from "./image.js";
import { readTextWindow } from "./text-window.js";

const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

const readParameters = Type.Object({
  path: Type.String({ description: "File to read: relative to the working directory, absolute, or starting with ~/." }),
  offset: Type.Optional(Type.Integer({ minimum: 1, description: "1-based line number to start at (default 1)." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: `Most lines to return (default and maximum ${MAX_OUTPUT_LINES}).` })),
});

export type ReadParams = Static<typeof readParameters>;

export interface ReadDetails {
  path: string;
  /** Set for images. */
  mimeType?: ImageMimeType;
  /** For text: the lines shown and the file's line count. */
  startLine?: number;
  endLine?: number;
  totalLines?: number;
  truncated?: boolean;
  /** The offset that continues where this read stopped. */
  nextOffset?: number;
}

const DESCRIPTION = `Read a file. Text comes back as its lines, at most ${MAX_OUTPUT_LINES} lines or ${MAX_OUTPUT_BYTES / 1024} KiB per call; \
when more remain, a notice at the end gives the offset to continue from. Lines longer than ${MAX_LINE_CHARS} characters are cut. \
Use offset and limit to read a part of a large file. PNG, JPEG, GIF and WebP images come back as images. \
Other binary files, directories (use ls), FIFOs and devices are refused, and so are KnightCode's credential files \
and a process's environment, command line or memory under /proc.`;

export function createReadTool(ctx: ToolContext): AgentTool<typeof readParameters, ReadDetails> {
  return {
    name: "read",
    label: "Read",
    description: DESCRIPTION,
    parameters: readParameters,
    executionMode: "parallel",
    execute: async (_toolCallId, params, signal) => {
      throwIfAborted(signal);
      const absolute = resolveToolPath(ctx, params.path);
      const shown = displayPath(ctx, absolute);
      CredentialFiles.of(ctx).refuse(absolute, shown);
      const { handle, size } = await openFile(absolute, shown);
      try {
        const mimeType = await sniffImage(handle);
        if (mimeType !== undefined) return await readImage(handle, shown, size, mimeType);
        return await readText(handle, shown, params, signal);
      } catch (error) {
        throw fileSystemError(error, shown, "read");
      } finally {
        await handle.close();
      }
    },
  };
}

/** The file, opened only when it is a regular one: a FIFO or a device would never answer. */
async function openFile(absolute: string, shown: string): Promise<{ handle: FileHandle; size: number }> {
  try {
    const { handle, stats } = await openRegularFile(absolute);
    return { handle, size: stats.size };
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") throw new ToolError("notFound", `File not found: ${shown}`);
    if (code === "EISDIR") throw new ToolError("notAFile", `${shown} is a directory, not a file. Use ls to list it.`);
    if (error instanceof NotRegularFileError) throw new ToolError("notAFile", `${shown} is ${error.kind}, not a regular file.`);
    throw fileSystemError(error, shown, "read");
  }
}

async function sniffImage(handle: FileHandle): Promise<ImageMimeType | undefined> {
  const head = Buffer.alloc(IMAGE_SNIFF_BYTES);
  const { bytesRead } = await handle.read(head, 0, IMAGE_SNIFF_BYTES, 0);
  return imageMimeType(head.subarray(0, bytesRead));
}

async function readImage(handle: FileHandle, shown: string, size: number, mimeType: ImageMimeType) {
  if (size > MAX_IMAGE_BYTES) {
    throw new ToolError("tooLarge", `${shown} is a ${formatBytes(size)} image; images up to ${formatBytes(MAX_IMAGE_BYTES)} can be read.`);
  }
  const data = Buffer.alloc(size);
  const { bytesRead } = await handle.read(data, 0, size, 0);
  const content: (TextContent | ImageContent)[] = [
    { type: "text", text: `Read image ${shown} (${mimeType}, ${formatBytes(bytesRead)}).` },
    { type: "image", data: data.subarray(0, bytesRead).toString("base64"), mimeType },
  ];
  return { content, details: { path: shown, mimeType } };
}

async function readText(handle: FileHandle, shown: string, params: ReadParams, signal: AbortSignal | undefined) {
  const offset = params.offset ?? 1;
  const maxLines = Math.min(params.limit ?? MAX_OUTPUT_LINES, MAX_OUTPUT_LINES);
  const window = await readTextWindow(handle, { offset, maxLines, maxBytes: MAX_OUTPUT_BYTES }, signal);
  if (window.totalLines === 0 && offset === 1) {
    return { content: [{ type: "text" as const, text: "(empty file)" }], details: { path: shown, totalLines: 0 } };
  }
  if (offset > window.totalLines) {
    throw new ToolError("invalidArgument", `Offset ${offset} is past the end of ${shown}, which has ${window.totalLines} lines.`);
  }
  const endLine = offset + window.lines.length - 1;
  const details: ReadDetails = { path: shown, startLine: offset, endLine, totalLines: window.totalLines };
  let text = window.lines.join("\n");
  if (endLine < window.totalLines) {
    details.nextOffset = endLine + 1;
    details.truncated = params.limit === undefined || window.lines.length < params.limit;
    const why = window.stoppedByBytes ? ` (${MAX_OUTPUT_BYTES / 1024} KiB output limit)` : "";
    text += `\n\n[Showing lines ${offset}-${endLine} of ${window.totalLines}${why}. Use offset=${endLine + 1} to continue.]`;
  }
  if (window.cutLines > 0) {
    text += `\n\n[${window.cutLines} line(s) longer than ${MAX_LINE_CHARS} characters were cut; use bash (for example cut -c or head -c) to see them whole.]`;
  }
  return { content: [{ type: "text" as const, text }], details };
}
