import type { AskUserAnswers, AskUserQuestion } from "@knightcode/agent/tools/ask-user";
import type { DialogOptions } from "@knightcode/agent/extensions/types";
import type { DialogParams, ServerRequestParams, UserQuestion } from "@knightcode/app-server-protocol";
import type { AskOutcome } from "../asking/asker.js";
import { oneLine, stripAnsi } from "./bridge.js";

/** A dialog's longer texts (a confirm's message, an editor's prefill) are cut here, on a code point. */
export const MAX_DIALOG_TEXT_BYTES = 64 * 1024;
/** A select offers at most this many options; the rest are not shown. */
export const MAX_DIALOG_OPTIONS = 200;
/** One answer's text (a note, the user's own words) beyond this fails the ask_user call. */
export const MAX_ANSWER_CHARS = 16_000;

function cutBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = "";
  let bytes = 0;
  for (const point of text) {
    bytes += Buffer.byteLength(point);
    if (bytes > max) break;
    out += point;
  }
  return out;
}

/** Multi-line text for a dialog: ANSI removed, line breaks kept, bounded. */
export function dialogText(text: unknown): string {
  return cutBytes(stripAnsi(String(text ?? "")).replace(/\r\n?/g, "\n"), MAX_DIALOG_TEXT_BYTES);
}

type DialogCore = { threadId: string; turnId?: string; title: string };

/** A select's params, and the extension's own option for each shown one (shown options are one line). */
export function selectDialog(core: DialogCore, options: readonly unknown[]): { params: DialogParams; originals: string[] } | undefined {
  const originals = options.slice(0, MAX_DIALOG_OPTIONS).map((o) => String(o));
  if (originals.length === 0) return undefined;
  return { params: { ...core, kind: "select", options: originals.map(oneLine) }, originals };
}

function plainAnswer(result: unknown): Record<string, unknown> | undefined {
  if (result === null || typeof result !== "object" || Array.isArray(result)) return undefined;
  const value = result as Record<string, unknown>;
  return Object.keys(value).every((key) => key === "value" || key === "confirmed") ? value : undefined;
}

/** What a select's answer picks: one of the offered options (the extension's own text), or nothing. */
export function selectAnswer(outcome: AskOutcome, shown: readonly string[], originals: readonly string[]): string | undefined {
  if (outcome.kind !== "answered") return undefined;
  const value = plainAnswer(outcome.result)?.value;
  if (typeof value !== "string") return undefined;
  const at = shown.indexOf(value);
  return at === -1 ? undefined : originals[at];
}

/** Only `{confirmed: true}` confirms; anything else, `{}` and a withdrawn dialog included, is no. */
export function confirmAnswer(outcome: AskOutcome): boolean {
  return outcome.kind === "answered" && plainAnswer(outcome.result)?.confirmed === true;
}

/** An input's or editor's text, or nothing when cancelled. */
export function textAnswer(outcome: AskOutcome): string | undefined {
  if (outcome.kind !== "answered") return undefined;
  const value = plainAnswer(outcome.result)?.value;
  return typeof value === "string" ? value : undefined;
}

/** ask_user's questions as the request carries them: the model's own words, its labels exact. */
export function questionsForWire(questions: readonly AskUserQuestion[]): UserQuestion[] {
  return questions.map((q) => ({
    id: q.id,
    text: q.question,
    options: q.options.map((o) => ({ label: o.label, ...(o.description !== undefined ? { description: o.description } : {}) })),
  }));
}

export type UserInputAnswer = { kind: "answers"; answers: AskUserAnswers } | { kind: "dismissed" } | { kind: "invalid"; reason: string };

/**
 * What a reply to `item/toolCall/requestUserInput` means. `{}` dismisses;
 * `{answers}` answers, each with an offered label (and a note) or the
 * user's own words, a skipped question left out. Anything else, a label
 * that was not offered above all, is invalid: the call fails and says why,
 * rather than pick something the user did not.
 */
export function interpretUserInput(result: unknown, questions: readonly AskUserQuestion[]): UserInputAnswer {
  if (result === null || typeof result !== "object" || Array.isArray(result)) return { kind: "invalid", reason: "the reply is not an object" };
  const reply = result as Record<string, unknown>;
  const extra = Object.keys(reply).find((key) => key !== "answers");
  if (extra !== undefined) return { kind: "invalid", reason: `the reply has an unknown field ${JSON.stringify(extra.slice(0, 64))}` };
  if (reply.answers === undefined) return { kind: "dismissed" };
  const given = reply.answers;
  if (given === null || typeof given !== "object" || Array.isArray(given)) return { kind: "invalid", reason: "answers is not an object" };
  const byId = new Map(questions.map((q) => [q.id, q]));
  const answers: AskUserAnswers = {};
  for (const [id, answer] of Object.entries(given as Record<string, unknown>)) {
    const question = byId.get(id);
    const named = JSON.stringify(id.slice(0, 64));
    if (!question) return { kind: "invalid", reason: `there is no question ${named}` };
    if (answer === null || typeof answer !== "object" || Array.isArray(answer)) return { kind: "invalid", reason: `the answer to ${named} is not an object` };
    const { label, note, other, ...rest } = answer as Record<string, unknown>;
    if (Object.keys(rest).length > 0) return { kind: "invalid", reason: `the answer to ${named} has an unknown field` };
    if (other !== undefined) {
      if (label !== undefined || note !== undefined) return { kind: "invalid", reason: `the answer to ${named} gives both its own words and an option` };
      if (typeof other !== "string") return { kind: "invalid", reason: `the answer to ${named} is not text` };
      if (other.length > MAX_ANSWER_CHARS) return { kind: "invalid", reason: `the answer to ${named} is longer than ${MAX_ANSWER_CHARS} characters` };
      answers[id] = { other };
      continue;
    }
    if (typeof label !== "string") return { kind: "invalid", reason: `the answer to ${named} names no option` };
    if (!question.options.some((o) => o.label === label)) {
      return { kind: "invalid", reason: `the answer to ${named} names the option ${JSON.stringify(label.slice(0, 200))}, which was not offered` };
    }
    if (note !== undefined && typeof note !== "string") return { kind: "invalid", reason: `the note on ${named} is not text` };
    if (typeof note === "string" && note.length > MAX_ANSWER_CHARS)
      return { kind: "invalid", reason: `the note on ${named} is longer than ${MAX_ANSWER_CHARS} characters` };
    answers[id] = note ? { label, note } : { label };
  }
  return { kind: "answers", answers };
}

export type UserInputParams = ServerRequestParams<"item/toolCall/requestUserInput">;

/** Our own callers' options: besides the extension API's, a word when the dialog was held until nobody came (unattended). */
export interface ThreadDialogOptions extends DialogOptions {
  onUnattended?(): void;
}

export interface DialogHost {
  readonly threadId: string;
  /** Puts a dialog to the thread's subscribers, as approvals are put. */
  ask(params: DialogParams, signal: AbortSignal | undefined): Promise<AskOutcome>;
  /** The running turn, if any: a dialog asked during it belongs to it and is withdrawn when it stops. */
  turn(): { id: string | undefined; signal: AbortSignal } | undefined;
}

/**
 * The dialogs a desktop thread's extensions (and its built-in features)
 * open: each a `ui/dialog` request, asked and withdrawn as approvals are.
 * A cancelled, withdrawn or unanswerable one resolves as cancelled
 * (undefined, or false for a confirm) and whatever asked goes on.
 */
export class ThreadDialogs {
  constructor(private readonly host: DialogHost) {}

  private async ask(params: DialogParams, opts: ThreadDialogOptions | undefined): Promise<AskOutcome> {
    const turn = this.host.turn();
    const signals = [opts?.signal, turn?.signal].filter((s): s is AbortSignal => s instanceof AbortSignal);
    const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    if (signal?.aborted) return { kind: "unanswered" };
    const outcome = await this.host.ask({ ...params, ...(turn?.id ? { turnId: turn.id } : {}) } as DialogParams, signal);
    if (outcome.kind === "unattended") opts?.onUnattended?.();
    return outcome;
  }

  private core(title: unknown): DialogCore {
    return { threadId: this.host.threadId, title: oneLine(String(title ?? "")) };
  }

  async select(title: string, options: string[], opts?: ThreadDialogOptions): Promise<string | undefined> {
    const dialog = selectDialog(this.core(title), Array.isArray(options) ? options : []);
    if (!dialog) return undefined;
    const shown = (dialog.params as { options: string[] }).options;
    return selectAnswer(await this.ask(dialog.params, opts), shown, dialog.originals);
  }

  async confirm(title: string, message: string, opts?: ThreadDialogOptions): Promise<boolean> {
    return confirmAnswer(await this.ask({ ...this.core(title), kind: "confirm", message: dialogText(message) }, opts));
  }

  async input(title: string, placeholder?: string, opts?: DialogOptions): Promise<string | undefined> {
    const params: DialogParams = { ...this.core(title), kind: "input", ...(placeholder !== undefined ? { placeholder: oneLine(placeholder) } : {}) };
    return textAnswer(await this.ask(params, opts));
  }

  async editor(title: string, prefill?: string, opts?: ThreadDialogOptions): Promise<string | undefined> {
    const params: DialogParams = { ...this.core(title), kind: "editor", ...(prefill !== undefined ? { prefill: dialogText(prefill) } : {}) };
    return textAnswer(await this.ask(params, opts));
  }
}
