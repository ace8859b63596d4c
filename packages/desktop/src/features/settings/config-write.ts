import type { ConfigRead, Scope } from "./config-model.js";

/** config/write refused because the file changed since it was read. */
export function isConflict(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "configConflict";
}

/** What a conflict means for the user, with the server's own words. */
export function conflictText(read: ConfigRead, scope: Scope, error: unknown): string {
  const file = scope === "global" ? read.paths.global : (read.paths.project ?? "the project settings");
  const message = error instanceof Error ? error.message : String(error);
  return `Not saved: ${file} changed since this page read it (${message}). The values shown are now the file's latest; make your change again.`;
}
