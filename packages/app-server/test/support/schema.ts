import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import { COMMON_ERROR_CODES } from "@knightcode/app-server-protocol";

const require = createRequire(import.meta.url);
const BASE = "http://knightcode.invalid/app-server.schema.json";

export const schemaPath = require.resolve("@knightcode/app-server-protocol/app-server.schema.json");

interface MethodEntry {
  errors?: string[];
}
type Document = Record<string, Record<string, MethodEntry>>;

/**
 * Checks protocol messages against the checked-in app-server.schema.json with
 * an independent validator (Ajv), so the server's own validator is not the
 * judge of its own output.
 */
export class ProtocolValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false });
  private readonly document: Document;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor() {
    this.document = JSON.parse(readFileSync(schemaPath, "utf8")) as Document;
    // Ajv resolves "#/..." references against a schema's $id, so the copy it holds gets one.
    this.ajv.addSchema({ ...this.document, $id: BASE });
  }

  private get(pointer: string): ValidateFunction {
    let validate = this.cache.get(pointer);
    if (!validate) {
      validate = this.ajv.getSchema(`${BASE}#${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer}`);
      this.cache.set(pointer, validate);
    }
    return validate;
  }

  private run(pointer: string, value: unknown, label: string): string | undefined {
    const validate = this.get(pointer);
    if (validate(value)) return undefined;
    return `${label}: ${this.ajv.errorsText(validate.errors)} in ${JSON.stringify(value).slice(0, 400)}`;
  }

  has(section: string, method: string): boolean {
    return Object.hasOwn(this.document[section] ?? {}, method);
  }

  private pointer(section: string, method: string, part: string): string {
    return `/${section}/${method.replaceAll("~", "~0").replaceAll("/", "~1")}/${part}`;
  }

  /** A message the server sent; `requestMethod` is the method of the client request a response answers. */
  checkServerMessage(message: Record<string, unknown>, requestMethod?: string): string | undefined {
    const envelope = this.run("/$defs/ServerMessage", message, "server message");
    if (envelope) return envelope;
    if (typeof message.method === "string") {
      const section = "id" in message ? "serverRequests" : "serverNotifications";
      if (!this.has(section, message.method)) return `server sent unknown ${section} method ${message.method}`;
      return this.run(this.pointer(section, message.method, "params"), message.params, `${message.method} params`);
    }
    if (requestMethod === undefined) return undefined;
    if ("result" in message) {
      return this.run(this.pointer("clientRequests", requestMethod, "result"), message.result, `${requestMethod} result`);
    }
    const code = (message.error as { code: string }).code;
    const allowed = [...COMMON_ERROR_CODES, "methodNotFound", ...(this.document.clientRequests?.[requestMethod]?.errors ?? [])];
    if (!allowed.includes(code)) return `${requestMethod} answered ${code}, which its table entry does not list`;
    return undefined;
  }

  /** A message the client sent; `requestMethod` is the server request a response answers. */
  checkClientMessage(message: Record<string, unknown>, requestMethod?: string): string | undefined {
    const envelope = this.run("/$defs/ClientMessage", message, "client message");
    if (envelope) return envelope;
    if (requestMethod !== undefined && "result" in message) {
      return this.run(this.pointer("serverRequests", requestMethod, "result"), message.result, `${requestMethod} result`);
    }
    return undefined;
  }
}
