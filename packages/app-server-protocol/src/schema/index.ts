export { protocol, type Protocol } from "./table.js";
export { buildJsonSchema, renderMethodReference } from "./generate.js";
export type { RequestDef, NotificationDef } from "./define.js";
export { renderTypeScript, methodTypeName } from "./typescript.js";
