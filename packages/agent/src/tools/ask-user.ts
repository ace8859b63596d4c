import type { AgentTool } from "@mariozechner/pi-agent-core";
import { Type, type Static } from "typebox";
import type { ToolContext } from "./context.js";
import { throwIfAborted, ToolError } from "./errors.js";

const optionSchema = Type.Object({
  label: Type.String({ minLength: 1, description: "Short answer text. End it with ' (Recommended)' to mark the option you recommend." }),
  description: Type.Optional(Type.String({ description: "What choosing this option means." })),
});

const questionSchema = Type.Object({
  id: Type.String({ minLength: 1, description: "Unique id of the question within this call." }),
  question: Type.String({ minLength: 1, description: "The question, complete and self-contained." }),
  options: Type.Array(optionSchema, { minItems: 1, description: "The choices offered; the user may also answer in their own words." }),
});

const askUserParameters = Type.Object({
  questions: Type.Array(questionSchema, { minItems: 1, description: "Questions asked together; the user answers them all at once." }),
});

export type AskUserParams = Static<typeof askUserParameters>;
export type AskUserQuestion = Static<typeof questionSchema>;

/** One answer: a chosen option's exact label (with an optional note), or the user's own words. */
export type AskUserAnswer = { label: string; note?: string } | { other: string };
/** Answers by question id; a skipped question has none. */
export type AskUserAnswers = Record<string, AskUserAnswer>;
/**
 * Asks the user; resolves to undefined when the user dismisses the
 * questions. A rejection fails the call with its message (an answer that
 * names an option never offered, say).
 */
export type AskUserHandler = (questions: AskUserQuestion[], call: { toolCallId: string; signal?: AbortSignal }) => Promise<AskUserAnswers | undefined>;

export interface AskUserDetails {
  answers: AskUserAnswers;
  dismissed: boolean;
}

const DESCRIPTION = `Ask the user one or more multiple-choice questions when a decision is theirs to make \
or a requirement is unclear, and wait for the answers. Offer concrete options; the user may pick one, add a note, \
answer in their own words, or skip a question. Do not use it for things you can find out yourself.`;

export function createAskUserTool(_ctx: ToolContext, ask?: AskUserHandler): AgentTool<typeof askUserParameters, AskUserDetails> {
  return {
    name: "ask_user",
    label: "Ask user",
    description: DESCRIPTION,
    parameters: askUserParameters,
    executionMode: "sequential",
    execute: async (toolCallId, params, signal) => {
      throwIfAborted(signal);
      if (ask === undefined) throw new ToolError("notAvailable", "ask_user is not available in this session: there is no user to ask.");
      const ids = new Set<string>();
      for (const { id } of params.questions) {
        if (ids.has(id)) throw new ToolError("invalidArgument", `Question id "${id}" is used twice; give each question its own id.`);
        ids.add(id);
      }
      const answers = await ask(params.questions, { toolCallId, ...(signal ? { signal } : {}) });
      if (answers === undefined) {
        return {
          content: [{ type: "text", text: "The user dismissed the questions without answering." }],
          details: { answers: {}, dismissed: true },
          terminate: true,
        };
      }
      return { content: [{ type: "text", text: formatAnswers(params.questions, answers) }], details: { answers, dismissed: false } };
    },
  };
}

function formatAnswers(questions: readonly AskUserQuestion[], answers: AskUserAnswers): string {
  return questions
    .map(({ id, question }) => {
      const answer = answers[id];
      let reply: string;
      if (answer === undefined) reply = "(skipped)";
      else if ("other" in answer) reply = `(in their own words) ${answer.other}`;
      else reply = answer.note ? `${answer.label} (note: ${answer.note})` : answer.label;
      return `Q: ${question}\nA: ${reply}`;
    })
    .join("\n\n");
}
