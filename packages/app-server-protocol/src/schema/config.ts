import { Type } from "typebox";
import { Closed, EmptyObject, Warning } from "./common.js";
import { request } from "./define.js";
import { reasons } from "../reasons.js";
import { SettingsScope } from "@knightcode/schema/common";
import { Environment } from "@knightcode/schema/environments";
import { ResourceType } from "@knightcode/schema/resources";

const Cwd = Type.String({ minLength: 1, maxLength: 4096, description: "An absolute path to an existing directory." });

const Version = Type.String({
  pattern: "^([0-9a-f]{64}|none)$",
  description: 'Lowercase hex SHA-256 of the file\'s raw bytes; "none" for an absent file or an unread untrusted scope.',
});

const _JsonObject = Type.Record(Type.String(), Type.Unknown());

export const ResourceInfo = Type.Object(
  {
    type: ResourceType,
    path: Type.String({ description: "Absolute path of the file that loads: the module, the skill's SKILL.md, the template or the theme." }),
    name: Type.String(),
    enabled: Type.Boolean(),
    scope: SettingsScope,
    origin: Type.Union([Type.Literal("directory"), Type.Literal("settings"), Type.Literal("package")], {
      description: "directory: the scope's own folder for the type; settings: a path in the scope's settings; package: a package the settings list.",
    }),
    source: Type.String({ description: "The folder, settings file or package folder that brought it." }),
    description: Type.Optional(Type.String()),
    shadowedBy: Type.Optional(Type.String({ description: "Path of the resource of the same type and name that wins over this one." })),
  },
  { ...Closed, $id: "ResourceInfo", description: "An extension, skill, prompt or theme the server found, with where it came from and whether it is on." },
);

const Environments = Type.Array(Environment, { maxItems: 50, description: "At most 50, names unique." });

export const config = {
  clientRequests: {
    "config/read": request({
      params: Type.Object({ cwd: Type.Optional(Cwd) }, Closed),
      result: Type.Object(
        {
          settings: Type.Record(Type.String(), Type.Unknown(), {
            description: "What the files set, merged (a trusted project's over global); unset keys are absent.",
          }),
          defaults: Type.Record(Type.String(), Type.Unknown(), { description: "What each unset known setting means, in the shape of settings." }),
          origins: Type.Record(Type.String(), SettingsScope, { description: "Dotted leaf key -> the scope its value came from." }),
          versions: Type.Object(
            { global: Version, project: Type.Optional(Version) },
            { ...Closed, description: "Each file's version as read, for config/write's expected versions." },
          ),
          paths: Type.Object(
            {
              global: Type.String({ description: "The global settings file." }),
              project: Type.Optional(Type.String({ description: "Named with cwd, even when the project is untrusted and the file unread." })),
            },
            { ...Closed, description: "Where the settings files are." },
          ),
          errors: Type.Array(Warning, { description: 'Files that do not parse and settings of the wrong type, as source "settings" warnings.' }),
        },
        Closed,
      ),
      doc: "Reads global settings and, with cwd, a trusted project's merged over them; settings, origins, versions and errors come from the same read of each file.",
    }),
    "config/write": request({
      params: Type.Object(
        {
          scope: Type.String({ description: "global or project; anything else is invalidParams naming the key." }),
          key: Type.String({ description: "A dotted key such as retry.provider.maxRetries." }),
          value: Type.Optional(
            Type.Unknown({ description: "Required: the new JSON value, or null to delete the key. Missing is invalidParams naming the key." }),
          ),
          cwd: Type.Optional(Cwd),
          expectedVersion: Type.Optional(Version),
        },
        Closed,
      ),
      result: Type.Object({ version: Version }, Closed),
      errors: ["configConflict"],
      reasons: reasons("untrusted", "missingCwd"),
      doc: "Sets or deletes one key in one scope's settings file under the file's lock; configConflict (data.version) when expectedVersion no longer matches.",
    }),
    "resource/list": request({
      params: Type.Object({ cwd: Type.Optional(Cwd) }, Closed),
      result: Type.Object({ resources: Type.Array(ResourceInfo) }, Closed),
      doc: "The extensions, skills, prompt templates and themes a thread in cwd (or with no project) would find, built-in and -e extensions left out; installs nothing.",
    }),
    "resource/set": request({
      params: Type.Object(
        {
          cwd: Type.Optional(Cwd),
          type: ResourceType,
          path: Type.String({ minLength: 1, maxLength: 4096, description: "A listed resource's absolute path." }),
          enabled: Type.Boolean({ description: "True turns the resource on, false off." }),
        },
        Closed,
      ),
      result: EmptyObject,
      reasons: reasons("untrusted"),
      doc: "Switches one listed resource on or off with a + or - pattern in the settings of the scope that defines it.",
    }),
    "environment/list": request({
      params: Type.Object({ cwd: Cwd }, Closed),
      result: Type.Object(
        {
          environments: Environments,
          trusted: Type.Union([Type.Boolean(), Type.Null()], { description: "project/trust/read's trusted; an untrusted project's scripts never run." }),
        },
        Closed,
      ),
      doc: "Reads the project's .knightcode/environments.json; no file is an empty list.",
    }),
    "environment/save": request({
      params: Type.Object({ cwd: Cwd, environments: Environments }, Closed),
      result: EmptyObject,
      reasons: reasons("untrusted"),
      doc: "Replaces the whole list in a trusted project's .knightcode/environments.json, under the same file lock as settings.",
    }),
  },
} as const;
