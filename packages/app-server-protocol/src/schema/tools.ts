import { Type } from "typebox";
import { Closed, EmptyObject } from "./common.js";
import { request } from "./define.js";
import { ToolSettingsEntry, ToolSource } from "@knightcode/schema/tools";

export const ToolInfo = Type.Object(
  {
    name: Type.String(),
    description: Type.String({ description: "What the model is told the tool does." }),
    source: ToolSource,
  },
  { ...Closed, $id: "ToolInfo" },
);

export const ClassifierModel = Type.Object(
  {
    provider: Type.String(),
    id: Type.String(),
    name: Type.String(),
  },
  {
    ...Closed,
    $id: "ClassifierModel",
    description: "A model whose provider has credentials: one the classifier gate's `model` can name, as `<provider>/<id>`.",
  },
);

export const tools = {
  clientRequests: {
    "tool/list": request({
      params: Type.Object(
        {
          cwd: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 4096,
              description: "An existing directory: what a new thread there would have. Without it, a project-less thread (global settings and resources only).",
            }),
          ),
        },
        Closed,
      ),
      result: Type.Object(
        {
          tools: Type.Array(ToolInfo, {
            description: "Every tool a new desktop thread would have, each name once, sorted by name; tools tools.json switches off are left out.",
          }),
          defaultTools: Type.Array(Type.String(), {
            description:
              "The tools such a thread offers the model, in that order: the defaultTools setting resolved (read, bash, edit, write when it names none; `+name` adds, `-name` removes), plus the tools a thread offers whenever it has them (ask_user, submit_plan, websearch, extension tools) unless `-name` removes them. Every name is in `tools`.",
          }),
        },
        Closed,
      ),
      doc: "The tools a new thread in `cwd` would register, from a session built in memory like command/list's: no extension starts, no MCP server starts, nothing is written. Change `defaultTools` with config/write.",
    }),
    "tool/settings/read": request({
      params: EmptyObject,
      result: Type.Object(
        {
          tools: Type.Array(ToolSettingsEntry, { description: "Each entry tools.json manages, set or not." }),
          classifiers: Type.Array(ClassifierModel, { description: "The models with credentials, for the classifier gate's `model`." }),
        },
        Closed,
      ),
      doc: "The KnightCode tools and the classifier gate as `<agentDir>/tools.json` configures them, secrets masked. A tools.json that cannot be understood answers `internal`.",
    }),
    "tool/settings/write": request({
      params: Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 64, description: "`websearch` or `classifiers.gate`." }),
          key: Type.String({ maxLength: 256, description: "`enabled`, or one of the entry's settings; one name, not a dotted path." }),
          value: Type.Union([Type.Boolean(), Type.String(), Type.Null()], {
            description: "`enabled` takes a boolean, every other key a string; null deletes the key (for `enabled`, restores the default).",
          }),
        },
        Closed,
      ),
      result: EmptyObject,
      doc: "Sets one setting in `<agentDir>/tools.json` (kept whole, written 0600 under the settings lock). An unknown name, a malformed or unknown key, or a value of the wrong type is `invalidParams`; a tools.json that cannot be understood is refused with `internal` and left as it is. Threads loaded later use the change; a loaded websearch tool reads its provider and key at each call.",
    }),
  },
} as const;
