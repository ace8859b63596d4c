import type { ResourceType } from "@knightcode/schema/resources";

export const RESOURCE_TYPES = ["extensions", "skills", "prompts", "themes"] as const satisfies readonly ResourceType[];
export type { ResourceType };
export type ResourceScope = "global" | "project" | "cli";
export type ResourceOrigin = "directory" | "settings" | "package" | "cli";

/**
 * A package listed in settings with its own filter: each list holds `+pattern`
 * or `-pattern` entries, relative to the package root, applied in order.
 */
export interface PackageEntry {
  source: string;
  extensions?: string[];
  skills?: string[];
  prompts?: string[];
  themes?: string[];
}

/** The resource keys of one settings file, taken as already read. */
export interface ResourceSettings {
  extensions?: string[];
  skills?: string[];
  prompts?: string[];
  themes?: string[];
  packages?: (string | PackageEntry)[];
}

export interface ScopedSettings {
  global?: ResourceSettings;
  project?: ResourceSettings;
}

export interface Resource {
  type: ResourceType;
  /** Absolute path of the file to load: the extension module, SKILL.md, the template or the theme. */
  path: string;
  name: string;
  enabled: boolean;
  scope: ResourceScope;
  origin: ResourceOrigin;
  /** The folder, settings file, package folder or `-e` path that brought it. */
  source: string;
  description?: string;
  /** Path of the resource of the same type and name that wins over this one. */
  shadowedBy?: string;
}

export interface ResourceWarning {
  message: string;
  source: "settings" | "extension";
  path?: string;
}

export type ResourceErrorCode = "unknownResource" | "untrusted" | "cliResource" | "unreadable";

/** A refused resource operation; the server maps every code to `invalidParams`. */
export class ResourceError extends Error {
  override readonly name = "ResourceError";

  constructor(
    readonly code: ResourceErrorCode,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}
