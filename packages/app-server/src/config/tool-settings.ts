import { ToolSettingsError } from "@knightcode/agent/tools/tool-settings";
import { rpcError } from "../rpc/errors.js";

/** Maps a tool settings failure: the caller's mistakes are invalidParams; a file we cannot understand or write is internal. */
export function toolSettingsError(error: unknown): Error {
  if (!(error instanceof ToolSettingsError)) return error as Error;
  switch (error.code) {
    case "unknownTool":
    case "invalidKey":
    case "invalidValue":
      return rpcError("invalidParams", error.message);
    case "corrupt":
    case "io":
      return rpcError("internal", error.message);
  }
}
