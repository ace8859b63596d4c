// Which schemas have plain-data copies in src/generated/, and from where.
import type { TSchema } from "typebox";
import { EnvNames, Settings } from "./settings.js";

export interface GeneratedModule {
  file: string;
  source: string;
  schemas: Readonly<Record<string, TSchema>>;
}

export const GENERATED: readonly GeneratedModule[] = [
  { file: "settings.ts", source: "src/settings.ts", schemas: { SETTINGS_SCHEMA: Settings, ENV_NAMES_SCHEMA: EnvNames } },
];
