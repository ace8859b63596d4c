import { join, resolve } from "node:path";
import type { SettingsScope } from "@knightcode/schema/common";

export type { SettingsScope };

/** A project's trust decision: true, false, or null while undecided. */
export type TrustDecision = boolean | null;

/** Anything that can tell a folder's trust decision; the TrustStore is one. */
export interface TrustLookup {
  decisionFor(cwd: string): TrustDecision;
}

/** A fixed decision, or a lookup asked at the moment of the read or write. */
export type TrustInput = TrustDecision | TrustLookup;

/** The folder inside a project that holds its KnightCode files. */
export const PROJECT_CONFIG_DIR = ".knightcode";
export const SETTINGS_FILE = "settings.json";

export function globalSettingsPath(agentDir: string): string {
  return join(resolve(agentDir), SETTINGS_FILE);
}

export function projectSettingsPath(cwd: string): string {
  return join(resolve(cwd), PROJECT_CONFIG_DIR, SETTINGS_FILE);
}

/** Only an explicit `true` opens a project's files; undecided counts as untrusted. */
export function isTrusted(trust: TrustInput | undefined, cwd: string): boolean {
  if (trust === undefined || trust === null || typeof trust === "boolean") return trust === true;
  return trust.decisionFor(cwd) === true;
}
