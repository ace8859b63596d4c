import { Type } from "typebox";
import { Closed, Warning } from "./common.js";
import { request } from "./define.js";
import { McpExposure } from "@knightcode/schema/mcp";

const Cwd = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: "An existing directory: its project's .knightcode/mcp.json counts when the project is trusted.",
});
const ServerName = Type.String({
  pattern: "^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$",
  description: "1 to 32 letters, digits, _ or -, starting with a letter or digit.",
});
const Scope = Type.Union([Type.Literal("global"), Type.Literal("project")], {
  description: "global: <agentDir>/mcp.json; project: <cwd>/.knightcode/mcp.json, which needs cwd and a trusted project.",
});

export const McpServer = Type.Object(
  {
    name: Type.String(),
    scope: Scope,
    source: Type.String({ description: "The file that defines the server." }),
    override: Type.Optional(Type.String({ description: "The trusted project's mcp.json whose entry of this name is in force instead." })),
    transport: Type.Union([Type.Literal("stdio"), Type.Literal("http")]),
    target: Type.String({
      description: "A stdio server's command line or an http server's URL, with URL credentials and query values masked; never env or header values.",
    }),
    description: Type.Optional(Type.String()),
    enabled: Type.Boolean(),
    exposure: McpExposure,
  },
  { ...Closed, $id: "McpServer" },
);

export const mcp = {
  clientRequests: {
    "mcp/list": request({
      params: Type.Object({ cwd: Type.Optional(Cwd) }, Closed),
      result: Type.Object(
        {
          servers: Type.Array(McpServer, { description: "Sorted by name." }),
          errors: Type.Array(Warning, { description: "Unreadable files and skipped entries." }),
          paths: Type.Object(
            {
              global: Type.String({ description: "The global mcp.json." }),
              project: Type.Optional(Type.String({ description: "Named whenever cwd is given, trusted or not." })),
            },
            { ...Closed, description: "Where the mcp.json files are." },
          ),
        },
        Closed,
      ),
      doc: "The MCP servers a thread in cwd (or with no project) would connect: the global mcp.json and a trusted project's, which overrides. Starts no server.",
    }),
    "mcp/update": request({
      params: Type.Object(
        {
          cwd: Type.Optional(Cwd),
          name: ServerName,
          enabled: Type.Optional(Type.Boolean({ description: "False keeps the server configured but does not start it." })),
          exposure: Type.Optional(McpExposure),
        },
        Closed,
      ),
      result: Type.Object({}, Closed),
      doc: "Changes a listed server's enabled or exposure: in the trusted project's file when it overrides the server, else in the file that defines it. An unknown name is invalidParams.",
    }),
    "mcp/add": request({
      params: Type.Object(
        {
          scope: Scope,
          cwd: Type.Optional(Cwd),
          name: ServerName,
          config: Type.Unknown({
            description: "An mcpServers entry: {command, args?, env?, cwd?} or {url, headers?, auth?}, with enabled?, exposure?, description?.",
          }),
        },
        Closed,
      ),
      result: Type.Object({ replaced: Type.Boolean({ description: "An entry of that name was there and is replaced." }) }, Closed),
      doc: "Adds or replaces a server entry after checking it. auth is refused in a project file; a project write needs cwd and a trusted project (invalidParams with data.reason untrusted).",
    }),
    "mcp/remove": request({
      params: Type.Object({ scope: Scope, cwd: Type.Optional(Cwd), name: ServerName }, Closed),
      result: Type.Object({ removed: Type.Boolean({ description: "False: the file held no server of that name." }) }, Closed),
      doc: "Removes a server entry from one file; removed is false when it had none of that name.",
    }),
  },
} as const;
