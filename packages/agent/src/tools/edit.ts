import type { AgentTool } from "@mariozechner/pi-agent-core";
import { Type, type Static } from "typebox";
import { writeFileAtomicAsync as writeFileAtomic } from "@knightcode/system/fs/atomic-write";
import { readRegularFile } from "@knightcode/system/fs/regular-file";
import { displayPath, resolveToolPath, type ToolContext } from "./context.js";
import { unifiedDiff, type ToolFileChange } from "./diff.js";
import { findReplacement } from "./edit-match.js";
import { errnoCode, fileSystemError, throwIfAborted, ToolError } from "./errors.js";
import { formatBytes } from "./format.js";
import type { FileChangeDetails } from "./write.js";

const MAX_EDIT_BYTES = 32 * 1024 * 1024;

const editParameters = Type.Object({
  path: Type.String({ description: "File to edit: relative to the working directory, absolute, or starting with ~/." }),
  oldText: Type.String({ description: "Text to replace. It must occur exactly once in the file, whitespace included." }),
  newText: Type.String({ description: "Text to put in its place (empty to delete it)." }),
});

export type EditParams = Static<typeof editParameters>;

export interface EditDetails extends FileChangeDetails {
  /** 1-based line where the replaced text starts. */
  line: number;
  /** The text was found only by ignoring whitespace differences. */
  fuzzy: boolean;
}

const DESCRIPTION = `Replace one exact piece of text in an existing file. oldText must occur exactly once: \
copy it from the file as it is now, with enough surrounding lines to be unique. If it is not found exactly, \
a unique match that ignores leading and trailing whitespace on each line is accepted. \
The file's line endings (LF or CRLF) and byte order mark are kept. Use write to create files.`;

export function createEditTool(ctx: ToolContext): AgentTool<typeof editParameters, EditDetails> {
  return {
    name: "edit",
    label: "Edit",
    description: DESCRIPTION,
    parameters: editParameters,
    executionMode: "sequential",
    execute: async (_toolCallId, params, signal) => {
      throwIfAborted(signal);
      const absolute = resolveToolPath(ctx, params.path);
      const shown = displayPath(ctx, absolute);
      try {
        const before = await readEditable(absolute, shown);
        const edited = applyEdit(before, params, shown);
        throwIfAborted(signal);
        await writeFileAtomic(absolute, edited.text);
        const change: ToolFileChange = { path: shown, kind: "modify", diff: unifiedDiff(before, edited.text, shown) };
        const how = edited.fuzzy ? " (matched ignoring whitespace differences)" : "";
        return {
          content: [{ type: "text", text: `Edited ${shown} at line ${edited.line}${how}.` }],
          details: { fileChanges: [change], line: edited.line, fuzzy: edited.fuzzy },
        };
      } catch (error) {
        throw fileSystemError(error, shown, "edit");
      }
    },
  };
}

async function readEditable(absolute: string, shown: string): Promise<string> {
  let data: Buffer;
  try {
    // Never more than one byte past the limit, whatever the file's size.
    data = await readRegularFile(absolute, MAX_EDIT_BYTES);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") throw new ToolError("notFound", `File not found: ${shown}. Use write to create a file.`);
    throw error;
  }
  if (data.length > MAX_EDIT_BYTES) {
    throw new ToolError("tooLarge", `${shown} is larger than ${formatBytes(MAX_EDIT_BYTES)}; edit handles files up to ${formatBytes(MAX_EDIT_BYTES)}.`);
  }
  if (data.includes(0)) throw new ToolError("binaryFile", `${shown} is a binary file; edit only changes text files.`);
  const text = data.toString("utf8");
  // Rewriting text that is not UTF-8 would replace its bytes with U+FFFD.
  if (!Buffer.from(text, "utf8").equals(data)) {
    throw new ToolError("binaryFile", `${shown} is not valid UTF-8; edit refuses to rewrite it. Use bash for other encodings.`);
  }
  return text;
}

/**
 * Matching runs on the text with CRLF turned into LF; the result is mapped
 * back onto the original so that everything outside the replaced span stays
 * byte for byte, and the inserted text takes the file's dominant line ending.
 */
function applyEdit(original: string, params: EditParams, shown: string): { text: string; line: number; fuzzy: boolean } {
  const bom = original.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = original.slice(bom.length);
  const oldText = params.oldText.replace(/\r\n/g, "\n");
  const newText = params.newText.replace(/\r\n/g, "\n");
  if (oldText === "") throw new ToolError("invalidArgument", "oldText is empty; give the exact text to replace.");
  if (oldText === newText) throw new ToolError("invalidArgument", "oldText and newText are the same; nothing would change.");
  const { normalized, carriageReturns } = normalizeLineEndings(body);
  const found = findReplacement(normalized, oldText, newText, shown);
  const toOriginal = (offset: number): number => offset + countBelow(carriageReturns, offset);
  const crlf = carriageReturns.length * 2 > countNewlines(normalized);
  const inserted = crlf ? found.text.replace(/\n/g, "\r\n") : found.text;
  const text = bom + body.slice(0, toOriginal(found.start)) + inserted + body.slice(toOriginal(found.end));
  const line = countNewlines(normalized.slice(0, found.start)) + 1;
  return { text, line, fuzzy: found.fuzzy };
}

/** The text with each CRLF as LF, and the offsets (in that text) of the LFs that lost a CR, ascending. */
function normalizeLineEndings(text: string): { normalized: string; carriageReturns: number[] } {
  const carriageReturns: number[] = [];
  let normalized = "";
  let from = 0;
  for (let at = text.indexOf("\r\n"); at !== -1; at = text.indexOf("\r\n", at + 2)) {
    normalized += text.slice(from, at);
    carriageReturns.push(normalized.length);
    from = at + 1;
  }
  return { normalized: normalized + text.slice(from), carriageReturns };
}

/** How many of the ascending `values` are below `limit`. */
function countBelow(values: readonly number[], limit: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (values[mid]! < limit) low = mid + 1;
    else high = mid;
  }
  return low;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return count;
}
