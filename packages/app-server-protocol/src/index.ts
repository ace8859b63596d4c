export { AppServerError, COMMON_ERROR_CODES, ERROR_CODES, isErrorCode, type ErrorCode } from "./errors.js";
export type * from "./types.js";
export type { ErrorData, ErrorDataByCode } from "./error-data.js";
export type { ApprovalInput, BuiltinTool, BuiltinToolInputs, ToolApprovalRequest } from "./tool-inputs.js";
export { ProtocolSchema, type Section, type SchemaDocument } from "./runtime.js";
export { SchemaCompiler, formatPath, type SchemaIssue } from "@knightcode/schema/validate";
export { LineFramer, decodeUtf8, type LineFramerOptions } from "./framing.js";
export { Listeners, type MessageTransport } from "./transport.js";
