import { ENV_NAMES_SCHEMA } from "@knightcode/schema/generated/settings";
import type { EnvNames } from "@knightcode/schema/settings";
import type { Static } from "typebox";
import { type Schema, SchemaCompiler } from "@knightcode/schema/validate";
import { expected } from "@knightcode/schema/words";

/** What values a known setting accepts: a type guard plus the words for messages and docs. */
export interface Kind<T> {
  readonly description: string;
  check(value: unknown): value is T;
}

/**
 * A setting's schema (the plain copy of its TypeBox schema) as a Kind. The
 * check is compiled on first use and kept: most settings are never checked
 * by a process that only answers a handshake or lists threads.
 */
export function kindOf<T>(schema: Schema): Kind<T> {
  let compiled: ((value: unknown, path: (string | number)[]) => unknown) | undefined;
  return {
    description: expected(schema as Parameters<typeof expected>[0]),
    check: (value: unknown): value is T => (compiled ??= new SchemaCompiler({}).compile(schema))(value, []) === undefined,
  };
}

export const envNames = kindOf<Static<typeof EnvNames>>(ENV_NAMES_SCHEMA);
