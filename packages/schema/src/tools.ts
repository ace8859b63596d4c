// Tools: where one comes from, and a tools.json entry as tool/settings/read shows it.
import { type Static, Type } from "typebox";
import { Closed } from "./common.js";

export const ToolSource = Type.Union([Type.Literal("builtin"), Type.Literal("extension"), Type.Literal("mcp")], {
  $id: "ToolSource",
  description:
    "Where a tool comes from: `builtin` is KnightCode's own (read, bash, ask_user, websearch, ...), `extension` an extension's (also one that replaces a built-in by name), `mcp` an MCP server's. tool/list starts no MCP server, so it lists none.",
});
export type ToolSource = Static<typeof ToolSource>;

export const ToolSettingsEntry = Type.Object(
  {
    name: Type.String({ description: "`websearch`, or `classifiers.gate` for the classifier gate." }),
    enabled: Type.Boolean({ description: "What tools.json sets, else the default (off for both)." }),
    settings: Type.Record(Type.String(), Type.String(), {
      description:
        "The entry's settings as text. The value of a key ending in `Key` is masked: `••••` and its last four characters, or `••••` alone for a secret of four characters or fewer.",
    }),
  },
  { ...Closed, $id: "ToolSettingsEntry" },
);
export type ToolSettingsEntry = Static<typeof ToolSettingsEntry>;
