import { Type, type TSchema } from "typebox";
import { Closed } from "./common.js";
import { View } from "./views.js";
import { FileChange, ReviewComment } from "@knightcode/schema/items";
import { ReviewFinding } from "@knightcode/schema/review";

const Millis = Type.Integer({ minimum: 0, description: "Unix milliseconds." });

/** Fields every item has; `index`, times and contents may change until item/completed. The literal `type` stays literal, so the union narrows. */
function item<K extends string, T extends Record<string, TSchema>>(type: K, name: string, fields: T, description: string) {
  return Type.Object(
    {
      id: Type.String({ description: "A durable ordinal within the turn, or a tool call's own id." }),
      type: Type.Literal(type),
      index: Type.Optional(Type.Integer({ minimum: 0, description: "Top-level position in the turn; order by its latest value." })),
      parentItemId: Type.Optional(Type.String({ description: "The tool call a nested call belongs to; nested calls have no index." })),
      startedAt: Type.Optional(Millis),
      completedAt: Type.Optional(Millis),
      ...fields,
    },
    { ...Closed, $id: name, description },
  );
}

export const ImageRef = Type.Object(
  {
    mimeType: Type.String(),
    data: Type.Optional(Type.String({ description: "Base64 bytes." })),
    path: Type.Optional(Type.String()),
  },
  { ...Closed, $id: "ImageRef" },
);

export const PayloadRef = Type.Object(
  { id: Type.String(), bytes: Type.Integer({ minimum: 0 }) },
  { ...Closed, $id: "PayloadRef", description: "An immutable large value; read it with payload/read." },
);

export const ToolCallStatus = Type.Union([Type.Literal("inProgress"), Type.Literal("completed"), Type.Literal("failed"), Type.Literal("declined")], {
  $id: "ToolCallStatus",
});

export const UserMessageItem = item(
  "userMessage",
  "UserMessageItem",
  {
    text: Type.String(),
    images: Type.Optional(Type.Array(ImageRef)),
    comments: Type.Optional(Type.Array(ReviewComment, { description: "Review comments sent with the text; the model receives them after it." })),
    clientMessageId: Type.Optional(Type.String()),
  },
  "What the user sent (after extensions transformed it).",
);

export const AgentMessageItem = item("agentMessage", "AgentMessageItem", { text: Type.String() }, "The model's answer text.");
export const ReasoningItem = item("reasoning", "ReasoningItem", { text: Type.String() }, "The model's reasoning text.");

/** A sub-agent a call started, messaged, waited for or closed. */
const SubAgentRef = Type.Object(
  {
    threadId: Type.String({ description: "The sub-agent's thread." }),
    name: Type.Optional(Type.String({ description: "The name the model gave it." })),
    status: Type.Union([Type.Literal("running"), Type.Literal("completed"), Type.Literal("interrupted"), Type.Literal("failed"), Type.Literal("closed")], {
      description: "Where it stood when the call ended.",
    }),
  },
  { ...Closed, $id: "SubAgentRef", description: "A sub-agent named by a call of the sub-agent tools." },
);

export const ToolCallItem = item(
  "toolCall",
  "ToolCallItem",
  {
    name: Type.String(),
    input: Type.Optional(Type.Unknown()),
    inputRef: Type.Optional(PayloadRef),
    output: Type.Optional(Type.String()),
    outputRef: Type.Optional(PayloadRef),
    status: ToolCallStatus,
    fileChanges: Type.Optional(Type.Array(FileChange)),
    view: Type.Optional(View),
    subagents: Type.Optional(
      Type.Array(SubAgentRef, { description: "The sub-agents a sub-agent tool's call named (agent_start, agent_send, agent_wait, agent_close)." }),
    ),
  },
  "A tool call; its id is the call id.",
);

export const CompactionItem = item("compaction", "CompactionItem", { summary: Type.String() }, "Older history was summarized.");

export const ExtensionMessageItem = item(
  "extensionMessage",
  "ExtensionMessageItem",
  { text: Type.String(), customType: Type.Optional(Type.String()), view: Type.Optional(View) },
  "A message an extension added to the conversation.",
);

export const ReviewFindingItem = item(
  "reviewFinding",
  "ReviewFindingItem",
  { ...ReviewFinding.properties },
  "Beyond the spec: a problem the model reported in a review turn (review/start), on lines of a hunk of the reviewed diff; its id is the call's. Only review turns produce it.",
);

/** A whole item moved out of line because it is over the inline limit. */
export const ItemReference = Type.Object(
  {
    id: Type.String(),
    type: Type.Union(
      [
        UserMessageItem.properties.type,
        AgentMessageItem.properties.type,
        ReasoningItem.properties.type,
        ToolCallItem.properties.type,
        CompactionItem.properties.type,
        ExtensionMessageItem.properties.type,
        ReviewFindingItem.properties.type,
      ],
      { description: "The referenced item's type." },
    ),
    index: Type.Optional(Type.Integer({ minimum: 0 })),
    payloadRef: PayloadRef,
  },
  { ...Closed, $id: "ItemReference", description: "An item too large to send inline; payload/read returns it as JSON." },
);

export const Item = Type.Union([UserMessageItem, AgentMessageItem, ReasoningItem, ToolCallItem, CompactionItem, ExtensionMessageItem, ReviewFindingItem], {
  $id: "Item",
  description: "An item of a turn; its type says which.",
});

export const HistoryItem = Type.Union([Item, ItemReference], {
  $id: "HistoryItem",
  description: "An item inline, or a reference to it when it is too large to send inline.",
});
