import { Type } from "typebox";
import { ERROR_CODES } from "../errors.js";
import { Closed } from "@knightcode/schema/common";

// The shared building blocks live in @knightcode/schema; the protocol's files take them from here.
export { Closed, Warning } from "@knightcode/schema/common";

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
