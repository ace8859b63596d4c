/** What a tool name may hold: what every provider accepts and `registerTool` checks. */
const MAX_TOOL_NAME = 64;

/**
 * Names an MCP tool may never take, whatever its server and tool are
 * called: the built-in tools. An extension tool of such a name would
 * replace the built-in one for the whole thread.
 */
const RESERVED = new Set(["read", "bash", "edit", "write", "grep", "find", "ls", "ask_user", "submit_plan", "powershell", "websearch"]);

function sanitize(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * The thread's MCP tool names, unique among themselves and never a
 * built-in's: `<server>_<tool>` with every other character made `_`, cut to
 * 64 characters, and given `_2`, `_3`, ... when taken.
 */
export class ToolNames {
  private readonly taken = new Set(RESERVED);

  /** A name for `tool` of `server` (or for a server's proxy tool, `mcp_<server>`), now taken. */
  claim(base: string): string {
    const clean = sanitize(base).slice(0, MAX_TOOL_NAME) || "mcp_tool";
    let name = clean;
    for (let n = 2; this.taken.has(name); n++) {
      const suffix = `_${n}`;
      name = clean.slice(0, MAX_TOOL_NAME - suffix.length) + suffix;
    }
    this.taken.add(name);
    return name;
  }

  static direct(server: string, tool: string): string {
    return `${server}_${tool}`;
  }

  static proxy(server: string): string {
    return `mcp_${server}`;
  }
}
