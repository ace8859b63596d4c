import { conn } from "../../connection/connection.js";
import { versionOf, type ConfigRead, type Scope } from "./config-model.js";

/** config/write refused because the file changed since it was read. */
export function isConflict(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "configConflict";
}

/**
 * Writes keys one after another into one scope's file, each expecting the
 * version the previous write left, so a change made elsewhere in between is
 * refused (configConflict) instead of overwritten.
 */
export async function writeSettings(read: ConfigRead, scope: Scope, changes: Array<[key: string, value: unknown]>, cwd: string | undefined): Promise<void> {
  let expectedVersion = versionOf(read, scope);
  for (const [key, value] of changes) {
    const answer = await conn().request("config/write", {
      scope,
      key,
      value,
      ...(cwd === undefined ? {} : { cwd }),
      ...(expectedVersion === undefined ? {} : { expectedVersion }),
    });
    expectedVersion = answer.version;
  }
}

/** What a conflict means for the user, with the server's own words. */
export function conflictText(read: ConfigRead, scope: Scope, error: unknown): string {
  const file = scope === "global" ? read.paths.global : (read.paths.project ?? "the project settings");
  const message = error instanceof Error ? error.message : String(error);
  return `Not saved: ${file} changed since this page read it (${message}). The values shown are now the file's latest; make your change again.`;
}
