import { Type } from "typebox";
import { ERROR_CODES } from "../errors.js";

/**
 * Objects the server sends are closed (`additionalProperties: false`) so a
 * test that validates every message catches a field the schema forgot.
 */
export const Closed = { additionalProperties: false } as const;

export const RequestId = Type.Union([Type.String(), Type.Number()], {
  $id: "RequestId",
  description: "A request id: a string or a finite number, echoed unchanged in the response.",
});

// Built from the list the runtime uses; its static type is the ErrorCode union of errors.ts, not this schema's.
export const ErrorCodeSchema = Type.Union(
  ERROR_CODES.map((code) => Type.Literal(code)),
  { $id: "ErrorCode", description: "The spec's error name, as a string." },
);

export const ErrorObject = Type.Object(
  {
    code: ErrorCodeSchema,
    message: Type.String(),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "Structured details the spec names for this error." })),
  },
  { ...Closed, $id: "ErrorObject" },
);

export const EmptyObject = Type.Object({}, { ...Closed, $id: "EmptyObject" });

export const Warning = Type.Object(
  {
    message: Type.String(),
    source: Type.Union([Type.Literal("settings"), Type.Literal("extension"), Type.Literal("trust"), Type.Literal("server"), Type.Literal("models")]),
    path: Type.Optional(Type.String()),
    line: Type.Optional(Type.Integer({ minimum: 1 })),
    column: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { ...Closed, $id: "Warning", description: "Something the user should see that did not stop the work." },
);
