export type ModelErrorCode = "noModel" | "modelNotFound" | "noCredentials" | "invalidThinkingLevel";

/** A model or credential problem, found before any request is sent. */
export class ModelError extends Error {
  override readonly name = "ModelError";

  constructor(
    readonly code: ModelErrorCode,
    message: string,
    readonly provider?: string,
    readonly modelId?: string,
  ) {
    super(message);
  }
}
