import { deletePath, getPath, type SettingsObject, setPath } from "./keys.js";

/** A setting that moved: its value at `from` now belongs at `to`. */
export interface SettingMigration {
  from: string;
  to: string;
}

export const SETTING_MIGRATIONS: readonly SettingMigration[] = [
  { from: "retry.maxRetries", to: "retry.provider.maxRetries" },
  { from: "retry.baseDelayMs", to: "retry.provider.baseDelayMs" },
  { from: "retry.maxDelayMs", to: "retry.provider.maxRetryDelayMs" },
  { from: "approvalMode", to: "defaultApprovalMode" },
];

const LEGACY_KEYS: ReadonlyMap<string, string> = new Map(SETTING_MIGRATIONS.map((m) => [m.from, m.to]));

/** The canonical key a legacy key moved to, if `key` is one. */
export function canonicalKeyOf(key: string): string | undefined {
  return LEGACY_KEYS.get(key);
}

/**
 * Moves legacy keys to their canonical place in `doc`, in place. A legacy
 * value only counts while the canonical key is unset; either way the legacy
 * key is removed (with parents it leaves empty). Returns the keys moved or
 * dropped.
 */
export function migrateSettings(doc: SettingsObject): string[] {
  const touched: string[] = [];
  for (const { from, to } of SETTING_MIGRATIONS) {
    const fromSegments = from.split(".");
    const legacy = getPath(doc, fromSegments);
    if (!legacy.found) continue;
    const toSegments = to.split(".");
    const current = getPath(doc, toSegments);
    // A non-object in the way of the canonical key is the canonical scope's own (invalid) value; it wins too.
    if (!current.found && current.blockedAt === undefined) setPath(doc, toSegments, legacy.value);
    deletePath(doc, fromSegments);
    touched.push(from);
  }
  return touched;
}
