import { ExtensionHost } from "../../src/extensions/host.js";
import type { ExtensionHostDeps } from "../../src/extensions/host-deps.js";
import { silentUI } from "../../src/extensions/silent-ui.js";
import type { ExtensionWarning } from "../../src/extensions/types.js";
import type { RunEnv } from "./env.js";

let hosts = 0;

/**
 * An extension host for a headless thread of `env`, idle and without a
 * turn, whose warnings are collected; `overrides` replaces any dependency.
 */
export function testHost(env: RunEnv, overrides: Partial<ExtensionHostDeps> = {}): { host: ExtensionHost; warnings: ExtensionWarning[] } {
  const warnings: ExtensionWarning[] = [];
  const host = new ExtensionHost({
    threadId: `t${++hosts}`,
    cwd: env.cwd,
    mode: "headless",
    hasUI: false,
    ui: silentUI(),
    registry: env.registry,
    model: () => undefined,
    turnSignal: () => undefined,
    abort: () => undefined,
    isIdle: () => true,
    appendEntry: () => undefined,
    sendMessage: () => undefined,
    warn: (warning) => warnings.push(warning),
    ...overrides,
  });
  return { host, warnings };
}
