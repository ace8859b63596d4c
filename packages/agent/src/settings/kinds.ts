import { EnvNames } from "@knightcode/schema/settings";
import { expected } from "@knightcode/schema/words";
import type { Static, TSchema } from "typebox";
import { Compile } from "typebox/compile";

/** What values a known setting accepts: a type guard plus the words for messages and docs. */
export interface Kind<T> {
  readonly description: string;
  check(value: unknown): value is T;
}

/**
 * A setting's schema as a Kind. The validator is compiled on the first
 * check and kept: most settings are never checked by a process that only
 * answers a handshake.
 */
export function kindOf<S extends TSchema>(schema: S): Kind<Static<S>> {
  let validator: { Check(value: unknown): boolean } | undefined;
  return {
    description: expected(schema),
    check: (value: unknown): value is Static<S> => (validator ??= Compile(schema)).Check(value),
  };
}

export const envNames = kindOf(EnvNames);
