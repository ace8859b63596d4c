import type { Warning } from "@knightcode/schema/common";

/**
 * A problem worth showing to the user that does not stop the work: a settings
 * file that does not parse, a setting of the wrong type, project resources
 * skipped until the project is trusted, a models.json or auth.json that
 * cannot be used. The same object travels in
 * `thread/start` warnings, `warning` notifications and `config/read` errors.
 */
export type { Warning };
