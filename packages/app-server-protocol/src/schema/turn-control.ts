import { Type } from "typebox";
import { Closed } from "./common.js";
import { ReviewComments } from "./diffs.js";
import { notification, request } from "./define.js";
import { reasons } from "../reasons.js";
import { QueueSnapshot } from "./threads.js";
import { ImageInput } from "./turns.js";

const ThreadId = Type.String({ minLength: 1, maxLength: 128, description: "The thread's id." });
const TurnId = Type.String({ minLength: 1, maxLength: 128, description: "The turn's id." });

export const turnControl = {
  clientRequests: {
    "turn/steer": request({
      params: Type.Object(
        {
          threadId: ThreadId,
          text: Type.String({ maxLength: 1_000_000, description: "The user's message." }),
          expectedTurnId: TurnId,
          images: Type.Optional(Type.Array(ImageInput, { maxItems: 32, description: "At most 32 images sent with the text." })),
        },
        Closed,
      ),
      result: Type.Object(
        {
          status: Type.Union([Type.Literal("steered"), Type.Literal("handled")], {
            description: "steered: the running turn takes it; handled: a command or extension took it.",
          }),
          turnId: Type.String({ description: "The turn's id." }),
        },
        Closed,
      ),
      errors: ["threadNotFound", "turnMismatch"],
      reasons: reasons("turnEnded", "queueFull"),
      doc: 'Hands input to the running turn, which must be expectedTurnId; a steer the turn ends before accepting answers invalidParams. Steers waiting for delivery count toward the queue\'s limit (invalidParams, data.reason "queueFull"). A built-in command (/compact, /new, /reload) is invalidParams: only turn/start runs one.',
    }),
    "turn/queue/add": request({
      params: Type.Object(
        {
          threadId: ThreadId,
          text: Type.String({ maxLength: 1_000_000, description: "The user's message." }),
          clientMessageId: Type.Optional(
            Type.String({ minLength: 1, maxLength: 128, description: "The client's own id for the message, echoed on its userMessage item." }),
          ),
          images: Type.Optional(Type.Array(ImageInput, { maxItems: 32, description: "At most 32 images sent with the text." })),
          comments: Type.Optional(ReviewComments),
        },
        Closed,
      ),
      result: Type.Object({ queueId: Type.String({ description: "Names the queued input for turn/queue/remove." }) }, Closed),
      errors: ["threadNotFound"],
      reasons: reasons("queueFull"),
      doc: 'Queues input that starts a turn of its own once the thread is idle, oldest first; at once on an idle thread. At most 100 inputs, 4 MiB of text and 256 MiB of images wait per thread, queued and steering together; past that invalidParams with data {reason: "queueFull", maxInputs, maxTextBytes, maxImageBytes}. A built-in command (/compact, /new, /reload) is invalidParams: only turn/start runs one.',
    }),
    "turn/queue/remove": request({
      params: Type.Object(
        { threadId: ThreadId, queueId: Type.String({ minLength: 1, maxLength: 128, description: "The queueId turn/queue/add answered." }) },
        Closed,
      ),
      result: Type.Object({ removed: Type.Boolean({ description: "False: unknown, already started or already removed." }) }, Closed),
      errors: ["threadNotFound"],
      doc: "Takes a queued input back before it starts; saved history is not edited.",
    }),
    "turn/interrupt": request({
      params: Type.Object({ threadId: ThreadId, turnId: Type.Optional(TurnId) }, Closed),
      result: Type.Object({ interrupted: Type.Boolean({ description: "Whether a turn or a start was running to interrupt." }) }, Closed),
      errors: ["threadNotFound", "turnMismatch"],
      doc: "Stops the running turn (or the start waiting on its input hooks) and drops queued inputs; answers at once.",
    }),
    "thread/compact/start": request({
      params: Type.Object({ threadId: ThreadId }, Closed),
      result: Type.Object(
        {
          status: Type.Literal("started", { description: "Compaction started as a turn of its own." }),
          turnId: Type.String({ description: "The turn's id." }),
        },
        Closed,
      ),
      errors: ["threadNotFound", "turnInProgress"],
      doc: "Summarizes older history now, as a turn of its own holding a compaction item.",
    }),
  },
  serverNotifications: {
    "turn/queue/updated": notification({
      params: Type.Object(
        {
          threadId: Type.String({ description: "The thread's id." }),
          steering: QueueSnapshot.properties.steering,
          followUp: QueueSnapshot.properties.followUp,
        },
        Closed,
      ),
      doc: "Steers the agent has not delivered yet and the queued inputs, whenever either changes, at most once per thread per turn of the server's event loop (the newest state); to subscribers.",
    }),
  },
} as const;
