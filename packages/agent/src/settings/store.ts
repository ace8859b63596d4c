import { readSettings, type SettingsSnapshot } from "./read.js";
import type { SettingsObject } from "./keys.js";
import type { SettingsScope, TrustInput } from "./scope.js";
import { type EditOptions, updateSettings, writeSetting } from "./write.js";

export interface SettingsStoreOptions {
  agentDir: string;
  cwd?: string;
  /** Pass the TrustStore so every call sees the current decision. */
  trust?: TrustInput;
}

/**
 * Settings of one agent dir and (optionally) one project, for code that
 * reads and sets them repeatedly. It holds no cache: every read goes to disk,
 * and every write shares the process-wide per-file queue with all other
 * stores and with `writeSetting`.
 */
export class SettingsStore {
  constructor(private readonly options: SettingsStoreOptions) {}

  read(): SettingsSnapshot {
    return readSettings(this.options);
  }

  write(scope: SettingsScope, key: string, value: unknown, options: EditOptions = {}): Promise<{ version: string }> {
    return writeSetting({ ...this.options, ...options, scope, key, value });
  }

  update(scope: SettingsScope, mutate: (settings: SettingsObject) => void, options: EditOptions = {}): Promise<{ version: string }> {
    return updateSettings({ ...this.options, scope }, mutate, options);
  }
}
