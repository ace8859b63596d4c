import type { ImageContent } from "@mariozechner/pi-ai";
import type { ExtensionMessageInput } from "../extensions/types.js";
import { extensionMessage, userMessage } from "../run/messages.js";
import type { TurnInput } from "../run/session-options.js";
import type { ExtensionInbox } from "./extension-inbox.js";
import type { TurnErrors } from "./errors.js";
import type { TurnLog } from "./observer.js";
import type { Run, StartOutcome, TurnEngine, Work } from "./run-record.js";
import { requireRoom, sizeOf, type WaitingSize } from "./waiting-limits.js";

/** What admitting and steering need of the controller. */
export interface AdmissionContext {
  /** The session and the input hooks; throws while the thread loads. */
  engine(): TurnEngine;
  readonly errors: TurnErrors;
  readonly log?: TurnLog;
  closing(): boolean;
  /** What extensions said while no turn could take it: it goes before the next turn's input. */
  readonly inbox: ExtensionInbox;
  /** On an idle thread: the oldest queued input starts, or the turn an extension asked for. */
  startNext(): void;
  /** The run is over, or never launched. */
  settle(run: Run, thrown?: unknown): void;
  runningTurnId(): string | undefined;
  /** What waits on the thread: queued inputs and steers not yet delivered. */
  waiting(): WaitingSize;
}

/**
 * Takes `work` from admission to its start entry: the model is checked, the
 * input passes the input hooks, extensions' messages join it, and the
 * session runs the turn. Answers once it started, or was handled or
 * cancelled; a run that never launched settles here.
 */
export async function admit(context: AdmissionContext, run: Run, work: Work): Promise<StartOutcome> {
  let launched = false;
  try {
    try {
      await context.engine().session.prepare();
    } catch (error) {
      throw context.errors.startFailed(error);
    }
    let input: TurnInput = { compactOnly: true };
    if (work.kind === "input") {
      const processed = await context.engine().processInput(work.text, work.images, work.source, run.turn.signal);
      // A replaced thread is the command's answer, whatever happened to this one since.
      if (processed.action === "handled" && processed.threadId !== undefined) return { status: "handled", threadId: processed.threadId };
      if (run.turn.interrupted) return { status: "cancelled" };
      if (processed.action === "handled") return { status: "handled" };
      input = { text: processed.text, images: processed.images, ...(work.comments.length > 0 ? { comments: work.comments } : {}) };
    } else if (work.kind === "extension") {
      input = {};
    }
    if (run.turn.interrupted || context.closing()) return { status: "cancelled" };
    if (work.kind !== "compact") {
      const preamble = context.inbox.take();
      if (preamble.length > 0) input = { ...input, preamble };
    }
    launched = true;
    if (work.kind === "input" && work.tools) run.turn.tools = work.tools;
    return { status: "started", turnId: await launch(context, run, input) };
  } finally {
    if (!launched) context.settle(run);
  }
}

/** Runs the turn; resolves with its id once its start entry is written. From here the first acceptance wins. */
function launch(context: AdmissionContext, run: Run, input: TurnInput): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    run.started = resolve;
    run.tracksFiles = input.compactOnly !== true;
    context
      .engine()
      .session.runTurn(input, run.turn)
      .then(
        () => context.settle(run),
        (error: unknown) => {
          if (run.turn.id === undefined) {
            // Nothing was written: what the turn carried from extensions waits for the next one.
            if (input.preamble) context.inbox.putBack(input.preamble);
            reject(context.errors.startFailed(error));
          } else {
            context.log?.error("a turn failed outside its run", error);
          }
          context.settle(run, error);
        },
      );
  });
}

/**
 * turn/steer: input for the running turn named `expectedTurnId`. It waits
 * in the steer queue while the input hooks run, and joins the turn only if
 * that turn still runs and takes input then.
 */
export async function steer(
  context: AdmissionContext,
  expectedTurnId: string,
  text: string,
  images: ImageContent[],
): Promise<{ status: "steered" | "handled"; turnId: string }> {
  const { errors } = context;
  const running = context.runningTurnId();
  if (running !== expectedTurnId) {
    throw errors.refused("turnMismatch", running ? `the running turn is ${running}, not ${expectedTurnId}` : "no turn is running", {
      ...(running ? { runningTurnId: running } : {}),
    });
  }
  requireRoom(context.waiting(), sizeOf(text, images), errors);
  const { session, processInput } = context.engine();
  const held = session.steers.hold(expectedTurnId);
  const ended = () => errors.refused("invalidParams", `turn ${expectedTurnId} ended before the steer was accepted`, { reason: "turnEnded" });
  try {
    const processed = await processInput(text, images, "user", held.signal);
    if (held.cancelled || context.runningTurnId() !== expectedTurnId) throw ended();
    if (processed.action === "handled") return { status: "handled", turnId: expectedTurnId };
    requireRoom(context.waiting(), sizeOf(processed.text, processed.images), errors);
    if (!session.deliver(userMessage(processed.text, processed.images), "steer", held)) throw ended();
    return { status: "steered", turnId: expectedTurnId };
  } finally {
    session.steers.release(held);
  }
}

/**
 * An extension's message, delivered as its API promises: into the running
 * turn (as a steer, or a follow-up), else before the next turn, starting
 * one when it asks to.
 */
export function deliverExtensionMessage(
  context: AdmissionContext,
  input: ExtensionMessageInput,
  options: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" },
): void {
  if (context.closing()) {
    context.log?.warn(`an extension message (${input.customType}) arrived while the thread unloads; it is dropped`);
    return;
  }
  const message = extensionMessage(input);
  if (context.engine().session.deliver(message, options.deliverAs ?? "steer")) return;
  context.inbox.push(message, options.triggerTurn === true);
  if (options.triggerTurn) context.startNext();
}
