import { Type } from "typebox";
import { Closed } from "./common.js";
import { request } from "./define.js";

export const payloads = {
  clientRequests: {
    "payload/read": request({
      params: Type.Object(
        {
          id: Type.String({ minLength: 1, maxLength: 128, description: "A reference's id, from a payloadRef, inputRef or outputRef." }),
          offset: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: "A byte offset: 0, then each answer's nextOffset." }),
        },
        Closed,
      ),
      result: Type.Object(
        {
          data: Type.String({ description: "Base64 of at most 48 KiB of the value's bytes from offset." }),
          eof: Type.Boolean({ description: "True when this chunk ends the value." }),
          nextOffset: Type.Optional(Type.Integer({ minimum: 1, description: "The byte offset of the next chunk; present when eof is false." })),
        },
        Closed,
      ),
      doc:
        "Reads one chunk of a large value by byte offset; concatenate the decoded chunks until eof. Each read renews the reference for 30 minutes. " +
        'An unknown or expired id answers invalidParams with data.reason "unknownPayload" (read the thread again); an offset past the end, "offsetOutOfRange" with data.bytes.',
    }),
  },
} as const;
