export { protocol, type Protocol } from "./table.js";
export { buildJsonSchema } from "./generate.js";
export { renderMethodReference, methodFields, exampleParams, type FieldRow, type ServedBy } from "./reference.js";
export type { RequestDef, NotificationDef } from "./define.js";
export { renderTypeScript, methodTypeName } from "./typescript.js";
