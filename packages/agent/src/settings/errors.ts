export type SettingsErrorCode =
  /** `expectedVersion` no longer matches the file; `data.version` is the current one. */
  | "conflict"
  /** A project write without an explicit trust decision for the project. */
  | "untrusted"
  /** A project write without a cwd, or with a cwd that is not an existing directory. */
  | "missingCwd"
  /** A malformed key, a forbidden segment, a legacy name, or a path blocked by a non-object. */
  | "invalidKey"
  /** A value of the wrong type for a known setting, or not plain JSON data. */
  | "invalidValue"
  /** The file holds something other than a JSON object and is never overwritten. */
  | "corrupt"
  /** Reading, locking or writing the file failed. */
  | "io";

export interface SettingsErrorData {
  /** The current version of the file, for `conflict`. */
  version?: string;
  /** `untrusted` or `missingCwd`, for the server's `invalidParams` data. */
  reason?: "untrusted" | "missingCwd";
  key?: string;
  path?: string;
}

/** The one error type of the settings engine; the server maps `code` to a protocol error. */
export class SettingsError extends Error {
  override readonly name = "SettingsError";

  constructor(
    readonly code: SettingsErrorCode,
    message: string,
    readonly data: SettingsErrorData = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
