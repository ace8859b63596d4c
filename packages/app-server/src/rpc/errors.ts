import { AppServerError } from "@knightcode/app-server-client/errors";
import type { ErrorCode, WireError } from "@knightcode/app-server-protocol";

/** Builds the one wire error type; handlers throw it to answer an error. */
export function rpcError(code: ErrorCode, message: string, data?: Record<string, unknown>): AppServerError {
  return new AppServerError(data === undefined ? { code, message } : { code, message, data });
}

export function toWireError(error: AppServerError): WireError {
  return error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data };
}

export { AppServerError };
