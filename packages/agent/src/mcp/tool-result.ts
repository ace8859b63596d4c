import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import { MAX_OUTPUT_BYTES, formatBytes } from "../tools/format.js";

/** What the model gets of one MCP result at most: the tools' shared text limit, and a few images. */
const MAX_IMAGES = 4;
const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;

/** An MCP `tools/call` result as the SDK answers it; only the fields read here. */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  /** The result of protocol versions before content blocks. */
  toolResult?: unknown;
}

type Block = Record<string, unknown>;

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A block the model can read: text as it is, an image when small and an image, a placeholder for the rest. */
function convert(block: Block, images: { count: number }): TextContent | ImageContent {
  switch (block.type) {
    case "text":
      return { type: "text", text: str(block.text) ?? "" };
    case "image": {
      const data = str(block.data);
      const mimeType = str(block.mimeType);
      if (data && mimeType?.startsWith("image/") && data.length <= MAX_IMAGE_BASE64 && images.count < MAX_IMAGES) {
        images.count++;
        return { type: "image", data, mimeType };
      }
      return { type: "text", text: `[image ${mimeType ?? "of unknown type"} left out]` };
    }
    case "resource": {
      const resource = (block.resource ?? {}) as Block;
      const uri = str(resource.uri) ?? "";
      const body = str(resource.text);
      return { type: "text", text: body === undefined ? `[resource ${uri}: binary content left out]` : `[resource ${uri}]\n${body}` };
    }
    case "resource_link":
      return { type: "text", text: `[resource link ${str(block.uri) ?? ""}${block.name ? ` (${str(block.name)})` : ""}]` };
    default:
      return { type: "text", text: `[${typeof block.type === "string" ? block.type : "unknown"} content left out]` };
  }
}

/** Text blocks cut so that all of them together stay within the limit. */
function bound(blocks: (TextContent | ImageContent)[]): { blocks: (TextContent | ImageContent)[]; truncated: boolean } {
  let left = MAX_OUTPUT_BYTES;
  let truncated = false;
  const out: (TextContent | ImageContent)[] = [];
  for (const block of blocks) {
    if (block.type !== "text") {
      out.push(block);
      continue;
    }
    if (left <= 0) {
      truncated = true;
      continue;
    }
    const bytes = Buffer.byteLength(block.text);
    if (bytes <= left) {
      out.push(block);
      left -= bytes;
      continue;
    }
    // Cut on a character boundary: decoding a cut UTF-8 prefix drops a partial last character.
    const cut = Buffer.from(block.text)
      .subarray(0, left)
      .toString("utf8")
      .replace(/\uFFFD$/, "");
    out.push({ type: "text", text: `${cut}\n[output cut at ${formatBytes(MAX_OUTPUT_BYTES)}: ${formatBytes(bytes - left)} more]` });
    left = 0;
    truncated = true;
  }
  return { blocks: out, truncated };
}

/**
 * The model's view of an MCP result: its content blocks (structured
 * content as JSON text when there are none), bounded. `isError` is the
 * server saying the call failed; the caller turns it into a failed call.
 */
export function convertCallResult(result: McpCallResult): { content: (TextContent | ImageContent)[]; isError: boolean; truncated: boolean } {
  const images = { count: 0 };
  let blocks: (TextContent | ImageContent)[] = [];
  if (Array.isArray(result.content)) {
    for (const block of result.content) if (block && typeof block === "object") blocks.push(convert(block as Block, images));
  }
  if (blocks.length === 0 && result.structuredContent !== undefined) blocks = [{ type: "text", text: JSON.stringify(result.structuredContent) }];
  if (blocks.length === 0 && result.toolResult !== undefined) blocks = [{ type: "text", text: JSON.stringify(result.toolResult) }];
  const bounded = bound(blocks);
  return { content: bounded.blocks, isError: result.isError === true, truncated: bounded.truncated };
}

/** The text of a result's text blocks, for a failed call's message. */
export function resultText(content: (TextContent | ImageContent)[]): string {
  return content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}
