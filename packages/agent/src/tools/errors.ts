import { NotRegularFileError } from "@knightcode/system/fs/regular-file";

/**
 * Why a tool call failed. `toolMissing` is also a protocol error code: the
 * server maps it unchanged; the others become a failed tool call whose
 * message the model reads.
 */
export type ToolErrorCode =
  | "toolMissing"
  | "invalidArgument"
  | "notFound"
  | "notAFile"
  | "notADirectory"
  | "binaryFile"
  | "tooLarge"
  | "noMatch"
  | "ambiguousMatch"
  | "commandFailed"
  | "timedOut"
  | "aborted"
  | "notAvailable"
  | "protectedPath"
  | "ioError";

/**
 * A tool failure. The agent loop only keeps `message` for the model, so the
 * message must stand on its own; `details` keeps what a UI may still want
 * (a failed command's exit code and output file, for example).
 */
export class ToolError extends Error {
  override readonly name = "ToolError";

  constructor(
    readonly code: ToolErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ToolError("aborted", "The tool call was aborted.");
}

/** The errno code of a Node system error, if it is one. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") return error.code;
  return undefined;
}

/** A file system failure as a message the model can act on; ToolErrors pass through. */
export function fileSystemError(error: unknown, shownPath: string, action: string): ToolError {
  if (error instanceof ToolError) return error;
  if (error instanceof NotRegularFileError) return new ToolError("notAFile", `Cannot ${action} ${shownPath}: it is ${error.kind}, not a regular file.`);
  const message = error instanceof Error ? error.message : String(error);
  switch (errnoCode(error)) {
    case "ENOENT":
    case "ENOTDIR":
      return new ToolError("notFound", `Cannot ${action} ${shownPath}: no such file or directory.`);
    case "EACCES":
    case "EPERM":
      return new ToolError("ioError", `Cannot ${action} ${shownPath}: permission denied.`);
    case "EISDIR":
      return new ToolError("notAFile", `Cannot ${action} ${shownPath}: it is a directory.`);
    case "ABORT_ERR":
      return new ToolError("aborted", "The tool call was aborted.");
    default:
      return new ToolError("ioError", `Cannot ${action} ${shownPath}: ${message}`);
  }
}
