/** Why the controller refuses a request; the server answers each with the error code of the same name. */
export type TurnRefusalCode = "turnInProgress" | "turnMismatch" | "threadNotFound" | "invalidParams" | "internal";

/**
 * How the controller's refusals and failed starts reach its caller: the
 * server makes them its wire errors, a caller without a wire keeps them
 * as TurnRefusal and the error as thrown.
 */
export interface TurnErrors {
  refused(code: TurnRefusalCode, message: string, data?: Record<string, unknown>): Error;
  /** A turn could not start (no model, no credentials, a transcript that cannot be written). */
  startFailed(error: unknown): Error;
}

export class TurnRefusal extends Error {
  override readonly name = "TurnRefusal";

  constructor(
    readonly code: TurnRefusalCode,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export const PLAIN_TURN_ERRORS: TurnErrors = {
  refused: (code, message, data) => new TurnRefusal(code, message, data),
  startFailed: (error) => (error instanceof Error ? error : new Error(String(error))),
};

/** The `data` of a turnInProgress refusal: the running turn's id, when one is known. */
export function turnIdData(turnId: string | undefined): { turnId: string } | undefined {
  return turnId === undefined || turnId === "" ? undefined : { turnId };
}
