import schemaFile from "../app-server.schema.json" with { type: "json" };
import { SchemaCompiler, formatPath, type Schema, type SchemaIssue } from "@knightcode/schema/validate";

export type Section = "clientRequests" | "clientNotifications" | "serverRequests" | "serverNotifications";

interface MethodEntry {
  description: string;
  params: unknown;
  result?: unknown;
  errors?: string[];
}

export type SchemaDocument = { $defs: Record<string, unknown> } & Record<Section, Record<string, MethodEntry>>;

let loaded: ProtocolSchema | undefined;

/**
 * The generated schema, read once, with validators compiled per method on
 * first use. This is what the dispatcher runs on; TypeBox stays out of the
 * running server.
 */
export class ProtocolSchema {
  private readonly compiler: SchemaCompiler;
  private readonly validators = new Map<string, (value: unknown) => SchemaIssue | undefined>();

  constructor(readonly document: SchemaDocument) {
    this.compiler = new SchemaCompiler(document);
  }

  static load(): ProtocolSchema {
    loaded ??= new ProtocolSchema(schemaFile as unknown as SchemaDocument);
    return loaded;
  }

  has(section: Section, method: string): boolean {
    return Object.hasOwn(this.document[section], method);
  }

  methods(section: Section): string[] {
    return Object.keys(this.document[section]);
  }

  /** Checks a value against a method's `params` or `result`; the message names the failing field. */
  check(section: Section, method: string, part: "params" | "result", value: unknown): string | undefined {
    const found = this.validator(section, method, part)(value);
    return found ? `${formatPath(part, found.path)} ${found.message}` : undefined;
  }

  /** Compiles these methods' validators now, so that their first requests do not wait for it (a warm-up). */
  prepare(section: Section, methods: readonly string[], part: "params" | "result" = "params"): void {
    for (const method of methods) this.validator(section, method, part);
  }

  private validator(section: Section, method: string, part: "params" | "result"): (value: unknown) => SchemaIssue | undefined {
    const key = `${section}\u0000${method}\u0000${part}`;
    let validator = this.validators.get(key);
    if (!validator) {
      const entry = this.document[section][method];
      if (!entry || entry[part] === undefined) throw new Error(`no ${part} schema for ${method}`);
      const compiled = this.compiler.compile(entry[part] as Schema);
      validator = (v) => compiled(v, []);
      this.validators.set(key, validator);
    }
    return validator;
  }
}
