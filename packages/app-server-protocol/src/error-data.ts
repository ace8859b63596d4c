import type { ErrorCode } from "./errors.js";
import type { ErrorReasonMeanings } from "./reasons.js";

/** The `data.reason`s a code's own entry in the reasons table names: `invalidParams`'s, `gitConflict`'s. */
type ReasonsOf<C extends string> = { [R in keyof ErrorReasonMeanings]: ErrorReasonMeanings[R] extends `${C}:${string}` ? R : never }[keyof ErrorReasonMeanings];

/**
 * A reason the table names, or another string: the server gives some
 * refusals a reason of their own (`unknownPayload`, a tool's error code), so
 * the named ones complete in an editor without the type claiming to be all.
 */
type Reason<Known extends string> = Known | (string & {});

/** A code whose `data` the docs name no field of. */
type NamesNothing = Record<never, never>;

/** Every code's `data` may carry more than its entry names; what it names has the type the docs give it. */
type Data<Known extends object> = Known & { [key: string]: unknown };

/**
 * What an error's `data` carries, by code, as docs/methods.md and the spec
 * say: `turnInProgress` names the running turn, `configConflict` the file's
 * version, `gitConflict` and `invalidParams` a reason with the paths,
 * output or limits that go with it. Every field may be absent: an error
 * names what applies to it, and a code without an entry here carries
 * nothing the docs name.
 */
export interface ErrorDataByCode {
  notInitialized: Data<NamesNothing>;
  methodNotFound: Data<NamesNothing>;
  invalidParams: Data<{
    reason?: Reason<ReasonsOf<"invalidParams"> | "unknownPayload" | "offsetOutOfRange">;
    /** The settings key a config refusal is about. */
    key?: string;
    /** controlPaths: the files the change would write. */
    paths?: string[];
    /** offsetOutOfRange: the value's size. */
    bytes?: number;
    /** queueFull: the limits of what may wait. */
    maxInputs?: number;
    maxTextBytes?: number;
    maxImageBytes?: number;
  }>;
  shuttingDown: Data<NamesNothing>;
  internal: Data<{
    /** What git or gh printed when it refused. */
    output?: string;
    /** The file a disk failure is about. */
    path?: string;
  }>;
  threadNotFound: Data<NamesNothing>;
  turnInProgress: Data<{ /** The running turn, when one is known. */ turnId?: string }>;
  turnMismatch: Data<{ /** The turn that is running, when one is. */ runningTurnId?: string }>;
  invalidCursor: Data<NamesNothing>;
  configConflict: Data<{ /** The file's version now: read again and resolve. */ version?: string }>;
  threadNotArchived: Data<NamesNothing>;
  threadLockedElsewhere: Data<{ /** The owning process, when its lock says. */ pid?: number; host?: string }>;
  archiveConflict: Data<{
    reason?: Reason<"destinationExists" | "hardLinked" | "moveInterrupted"> /** Every name the transcript has now. */;
    paths?: string[];
  }>;
  notGitRepo: Data<NamesNothing>;
  gitConflict: Data<{
    reason?: Reason<ReasonsOf<"gitConflict">>;
    /** localChanges, concurrentChange: the files in the way. */
    paths?: string[];
    /** patchFailed, pushRejected: git's own words. */
    output?: string;
    /** recoveryRequired: the saved patch and what to do with it. */
    patch?: string;
    recoveryInstructions?: string;
  }>;
  toolMissing: Data<{ /** The program that is not on the server's PATH. */ tool?: string }>;
  authRequired: Data<{ /** The provider that has no usable credential. */ provider?: string }>;
}

/** The `data` of an error of code `C`; for a union of codes, the union of their data. */
export type ErrorData<C extends ErrorCode = ErrorCode> = C extends ErrorCode ? ErrorDataByCode[C] : never;
