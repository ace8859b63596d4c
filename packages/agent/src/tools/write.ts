import type { AgentTool } from "@mariozechner/pi-agent-core";
import { mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { Type, type Static } from "typebox";
import { writeFileAtomicAsync as writeFileAtomic } from "@knightcode/system/fs/atomic-write";
import { readRegularFile, requireRegularFile } from "@knightcode/system/fs/regular-file";
import { displayPath, resolveToolPath, type ToolContext } from "./context.js";
import { unifiedDiff, type ToolFileChange } from "./diff.js";
import { errnoCode, fileSystemError, throwIfAborted, ToolError } from "./errors.js";

/** Above this, an overwritten file's old contents are not diffed. */
const MAX_DIFF_INPUT_BYTES = 8 * 1024 * 1024;

const writeParameters = Type.Object({
  path: Type.String({ description: "File to write: relative to the working directory, absolute, or starting with ~/." }),
  content: Type.String({ description: "The complete new contents of the file." }),
});

export type WriteParams = Static<typeof writeParameters>;

export interface FileChangeDetails {
  fileChanges: ToolFileChange[];
}

const DESCRIPTION = `Write a file with the given content, creating it and any missing parent directories, or replacing it whole \
if it exists (its permissions are kept). Prefer edit for changing part of an existing file; read a file before overwriting it.`;

export function createWriteTool(ctx: ToolContext): AgentTool<typeof writeParameters, FileChangeDetails> {
  return {
    name: "write",
    label: "Write",
    description: DESCRIPTION,
    parameters: writeParameters,
    executionMode: "sequential",
    execute: async (_toolCallId, params, signal) => {
      throwIfAborted(signal);
      const absolute = resolveToolPath(ctx, params.path);
      const shown = displayPath(ctx, absolute);
      try {
        const before = await previousContents(absolute, shown);
        await mkdir(dirname(absolute), { recursive: true });
        throwIfAborted(signal);
        await writeFileAtomic(absolute, params.content);
        const diff = before.text === undefined ? "" : unifiedDiff(before.existed ? before.text : null, params.content, shown);
        const change: ToolFileChange = { path: shown, kind: before.existed ? "modify" : "add", diff };
        const bytes = Buffer.byteLength(params.content);
        const verb = before.existed ? "Overwrote" : "Created";
        return { content: [{ type: "text", text: `${verb} ${shown} (${bytes} bytes).` }], details: { fileChanges: [change] } };
      } catch (error) {
        throw fileSystemError(error, shown, "write");
      }
    },
  };
}

/** The file's current text, or nothing when it is absent; `text` is undefined when too large or binary to diff. */
async function previousContents(absolute: string, shown: string): Promise<{ existed: boolean; text?: string }> {
  let size: number;
  try {
    const info = await stat(absolute);
    if (info.isDirectory()) throw new ToolError("notAFile", `${shown} is a directory; give a file path.`);
    // A FIFO or a device is not replaced by a file, nor read (which could wait forever).
    requireRegularFile(absolute, info);
    size = info.size;
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return { existed: false, text: "" };
    throw error;
  }
  if (size > MAX_DIFF_INPUT_BYTES) return { existed: true };
  const data = await readRegularFile(absolute, MAX_DIFF_INPUT_BYTES);
  if (data.length > MAX_DIFF_INPUT_BYTES) return { existed: true };
  return data.includes(0) ? { existed: true } : { existed: true, text: data.toString("utf8") };
}
