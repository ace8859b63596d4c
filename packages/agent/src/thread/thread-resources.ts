import type { ExtensionSpec } from "../extensions/host-deps.js";
import { discoverResources, type DiscoverOptions } from "../resources/discover.js";
import type { Resource, ResourceSettings } from "../resources/types.js";
import type { SettingsObject } from "../settings/keys.js";
import type { SettingsSnapshot } from "../settings/read.js";
import { findProjectResources, untrustedResourcesWarning } from "../trust/resources.js";
import type { Warning } from "@knightcode/system/warning";
import type { ThreadEnvironment } from "./runtime-options.js";

function resourceSettings(settings: SettingsObject | undefined): ResourceSettings | undefined {
  if (!settings) return undefined;
  const pick = (key: string) => (Array.isArray(settings[key]) ? (settings[key] as never) : undefined);
  return { extensions: pick("extensions"), skills: pick("skills"), prompts: pick("prompts"), themes: pick("themes"), packages: pick("packages") };
}

/** What a thread in `cwd` loads: its resources and, in load order, the extensions among them. */
export interface ThreadResources {
  resources: Resource[];
  extensions: ExtensionSpec[];
  warnings: Warning[];
}

/**
 * What resource discovery needs to find what a thread in `cwd` (or, without
 * one, a project-less thread) would: both scopes' settings as `snapshot`
 * read them, a project's own only when it is trusted, the `-e` paths and
 * the built-in names.
 */
export function threadDiscoveryOptions(env: ThreadEnvironment, cwd: string | undefined, snapshot: SettingsSnapshot, trusted: boolean): DiscoverOptions {
  const scopes = snapshot.scopes;
  return {
    agentDir: env.agentDir,
    ...(cwd === undefined ? {} : { cwd }),
    projectTrusted: trusted,
    settings: { global: resourceSettings(scopes.global.settings), project: trusted ? resourceSettings(scopes.project?.settings) : undefined },
    cliExtensions: [...env.extensionPaths],
    builtinNames: (env.builtinExtensions ?? []).map((b) => b.path),
  };
}

/**
 * The resources the settings allow a thread in `cwd`: a project's own only
 * when it is trusted. Reads files and writes none.
 */
export function threadResources(env: ThreadEnvironment, cwd: string, snapshot: SettingsSnapshot, trusted: boolean): ThreadResources {
  const warnings: Warning[] = [];
  const discovery = discoverResources(threadDiscoveryOptions(env, cwd, snapshot, trusted));
  warnings.push(...discovery.warnings);
  if (!trusted && env.trust.decisionFor(cwd) === null) {
    // By entry, mcp.json and environments.json included: they load nothing here, but they wait for trust all the same.
    const found = findProjectResources(cwd);
    if (found.length > 0) warnings.push(untrustedResourcesWarning(cwd, found));
  }
  const extensions: ExtensionSpec[] = [
    ...(env.builtinExtensions ?? []),
    ...discovery.resources.filter((r) => r.type === "extensions" && r.enabled).map((r) => ({ path: r.path })),
  ];
  return { resources: discovery.resources, extensions, warnings };
}
