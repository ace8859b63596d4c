import { Type } from "typebox";
import { Closed, EmptyObject } from "./common.js";
import { request } from "./define.js";
import { PayloadRef } from "./items.js";

export const ApprovalDecision = Type.Union(
  [
    Type.Literal("accept"),
    Type.Literal("acceptForSession"),
    Type.Literal("acceptPrefixForSession"),
    Type.Literal("acceptNetworkForSession"),
    Type.Literal("decline"),
    Type.Literal("cancel"),
  ],
  {
    $id: "ApprovalDecision",
    description:
      "The user's answer: run once, run for the session, run this prefix for the session, run with the network and let the thread's sandboxed commands use it until the thread unloads (offered only when a sandboxed command asks for the network), do not run, or stop the turn.",
  },
);

const Cwd = Type.String({ minLength: 1, maxLength: 4096, description: "A directory of the project." });

const PendingServerRequest = Type.Object(
  {
    threadId: Type.String({ description: "The thread that asks." }),
    method: Type.Union([Type.Literal("item/toolCall/requestApproval"), Type.Literal("item/toolCall/requestUserInput"), Type.Literal("ui/dialog")], {
      description: "The server request it is: an approval, ask_user's questions, or a dialog (plan review is a ui/dialog).",
    }),
    itemId: Type.Optional(Type.String({ description: "The tool call it is about, when it is about one." })),
    since: Type.Integer({ minimum: 0, description: "When it was first asked, in milliseconds since the epoch." }),
  },
  { ...Closed, description: "A request the server is waiting on." },
);

export const approvals = {
  clientRequests: {
    "serverRequest/list": request({
      params: EmptyObject,
      result: Type.Object(
        {
          requests: Type.Array(PendingServerRequest, {
            description: "Every request the server is waiting on, for any connection, held ones included; oldest first.",
          }),
        },
        Closed,
      ),
      doc: "Lists what the server waits on a person for, so a client that starts or reconnects can resume those threads and be asked.",
    }),
    "project/trust/read": request({
      params: Type.Object({ cwd: Cwd }, Closed),
      result: Type.Object(
        {
          trusted: Type.Union([Type.Boolean(), Type.Null()], { description: "null: undecided." }),
          needsTrust: Type.Boolean({ description: "The project has project-local resources that wait for a decision." }),
        },
        Closed,
      ),
      doc: "Reads the server-owned trust decision for a project folder.",
    }),
    "project/trust/set": request({
      params: Type.Object({ cwd: Cwd, trusted: Type.Boolean({ description: "True trusts the project, false withdraws trust." }) }, Closed),
      result: EmptyObject,
      doc: "Records a trust decision; later loads use it, loaded threads are not rebuilt.",
    }),
  },
  serverRequests: {
    "item/toolCall/requestApproval": request({
      params: Type.Object(
        {
          threadId: Type.String({ description: "The thread's id." }),
          turnId: Type.String({ description: "The turn's id." }),
          itemId: Type.String({ description: "The tool call's item id (its call id)." }),
          tool: Type.String({ description: "The tool's name." }),
          input: Type.Optional(Type.Unknown({ description: "The tool call's arguments; absent when over the inline limit (see inputRef)." })),
          inputRef: Type.Optional(PayloadRef),
          decisions: Type.Array(ApprovalDecision, { minItems: 1, description: "The choices to render; anything else counts as decline." }),
          reason: Type.Optional(Type.String({ description: "Why the gate asks, such as a write outside the workspace." })),
          prefix: Type.Optional(Type.String({ description: "The shell command prefix acceptPrefixForSession would grant." })),
        },
        Closed,
      ),
      result: Type.Object(
        {
          decision: ApprovalDecision,
          message: Type.Optional(Type.String({ maxLength: 4000, description: "A decline's reason for the agent." })),
        },
        Closed,
      ),
      doc: "Asks one subscriber whether a tool call may run; withdrawn with serverRequest/cancelled when it moves or ends.",
    }),
  },
} as const;
