import { Type } from "typebox";
import { Closed } from "./common.js";
import { ReviewComments } from "./diffs.js";
import { notification, request } from "./define.js";
import { reasons } from "../reasons.js";
import { HistoryItem } from "./items.js";
import { Turn } from "./threads.js";
import { TurnError } from "@knightcode/schema/threads";

const ThreadId = Type.String({ minLength: 1, maxLength: 128, description: "The thread's id." });

export const ImageInput = Type.Union(
  [
    Type.Object(
      {
        mimeType: Type.Union([Type.Literal("image/png"), Type.Literal("image/jpeg"), Type.Literal("image/gif"), Type.Literal("image/webp")]),
        data: Type.String({ minLength: 1, maxLength: 28_000_000, description: "Base64, at most 20 MiB decoded." }),
      },
      Closed,
    ),
    Type.Object(
      { path: Type.String({ minLength: 1, maxLength: 4096, description: "Absolute path to a PNG, JPEG, GIF or WebP file of at most 20 MiB." }) },
      Closed,
    ),
  ],
  { $id: "ImageInput", description: "An image sent with a message: its bytes inline or a file path." },
);

const ClientMessageId = Type.String({
  minLength: 1,
  maxLength: 128,
  description: "The client's own id for the message, echoed on its userMessage item so the client can match its optimistic copy.",
});

const TurnParams = { threadId: Type.String({ minLength: 1, maxLength: 128, description: "The thread's id." }) };
const ItemParams = { threadId: Type.String({ description: "The thread's id." }), turnId: Type.String({ description: "The turn's id." }) };

export const turns = {
  clientRequests: {
    "turn/start": request({
      params: Type.Object(
        {
          threadId: ThreadId,
          text: Type.String({ maxLength: 1_000_000, description: "The user's message." }),
          requestId: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 128,
              description: "The client's own id for this request, echoed in the result and on turn/started so the turn can be matched to it.",
            }),
          ),
          clientMessageId: Type.Optional(ClientMessageId),
          images: Type.Optional(Type.Array(ImageInput, { maxItems: 32, description: "At most 32 images sent with the text." })),
          comments: Type.Optional(ReviewComments),
        },
        Closed,
      ),
      result: Type.Object(
        {
          status: Type.Union([Type.Literal("started"), Type.Literal("handled"), Type.Literal("cancelled")], {
            description: "started: a turn runs; handled: a command or extension took the input and no turn runs; cancelled: an extension dropped it.",
          }),
          threadId: Type.String({ description: "The thread that now runs: the new one after a session-replacing command." }),
          requestId: Type.Optional(Type.String({ description: "The requestId the client sent." })),
        },
        Closed,
      ),
      errors: ["threadNotFound", "turnInProgress", "authRequired"],
      reasons: reasons("noModel", "modelNotFound", "invalidThinkingLevel"),
      doc: "Starts a turn without waiting for it: started, handled (a command or an extension consumed the input) or cancelled. A session-replacing command answers handled with the new thread's id.",
    }),
  },
  serverNotifications: {
    "turn/started": notification({
      params: Type.Object(
        { ...TurnParams, turn: Turn, requestId: Type.Optional(Type.String({ description: "The requestId of the turn/start that began it." })) },
        Closed,
      ),
      doc: "A turn began; to subscribers.",
    }),
    "turn/completed": notification({
      params: Type.Object({ ...TurnParams, turn: Turn }, Closed),
      doc: "A turn ended (completed, failed or interrupted); a summary without items; to subscribers.",
    }),
    "thread/turn/completed": notification({
      params: Type.Object({ ...TurnParams, turn: Turn }, Closed),
      doc: "The same outcome, for sidebars; to every connection.",
    }),
    "turn/retrying": notification({
      params: Type.Object(
        {
          ...ItemParams,
          attempt: Type.Integer({ minimum: 1, description: "Which retry this is, from 1." }),
          maxAttempts: Type.Integer({ minimum: 1, description: "How many retries there will be at most." }),
          delayMs: Type.Integer({ minimum: 0, description: "How long until the retry." }),
          error: TurnError,
        },
        Closed,
      ),
      doc: "A transient provider error; the turn retries after delayMs; to subscribers.",
    }),
    "item/started": notification({
      params: Type.Object({ ...ItemParams, item: HistoryItem }, Closed),
      doc: "An item began; its times and contents are provisional. An item over the inline limit comes as {id, type, index?, payloadRef}.",
    }),
    "item/completed": notification({
      params: Type.Object({ ...ItemParams, item: HistoryItem }, Closed),
      doc: "An item's final times, text, fileChanges and index: replace what streamed. An item over the inline limit comes as {id, type, index?, payloadRef}.",
    }),
    "item/removed": notification({
      params: Type.Object({ ...ItemParams, itemId: Type.String({ description: "The item's id: for a tool call, its call id." }) }, Closed),
      doc: "An item was withdrawn (a failed attempt's partial reply, or one a message-end handler dropped).",
    }),
    "item/agentMessage/delta": notification({
      params: Type.Object(
        {
          ...ItemParams,
          itemId: Type.String({ description: "The item's id: for a tool call, its call id." }),
          delta: Type.String({ description: "Text to append to the item's text." }),
        },
        Closed,
      ),
      doc: "More answer text.",
    }),
    "item/reasoning/delta": notification({
      params: Type.Object(
        {
          ...ItemParams,
          itemId: Type.String({ description: "The item's id: for a tool call, its call id." }),
          delta: Type.String({ description: "Text to append to the item's text." }),
        },
        Closed,
      ),
      doc: "More reasoning text.",
    }),
  },
} as const;
