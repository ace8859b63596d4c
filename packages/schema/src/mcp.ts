// MCP servers: how their tools reach the model.
import { type Static, Type } from "typebox";

export const McpExposure = Type.Union([Type.Literal("direct"), Type.Literal("proxy")], {
  $id: "McpExposure",
  description: "direct: each MCP tool is a tool of its own; proxy: one tool, mcp_<server>, calls the server's tools by name.",
});
export type McpExposure = Static<typeof McpExposure>;
