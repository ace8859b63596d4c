import type { JSX } from "preact";

/** What a tool call would do, read from its arguments: a command, a path, the lines it changes. */
interface Reading {
  command?: string;
  path?: string;
  /** Lines prefixed "+" or "-", as a unified diff shows them. */
  diff?: string[];
}

type Input = Record<string, unknown>;

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function lines(value: string, sign: "+" | "-"): string[] {
  return value.replace(/\n$/, "").split("\n").map((line) => `${sign}${line}`);
}

/** Reads the shapes the built-in tools use (bash's command, write's content, edit's old and new text); anything else shows as JSON. */
function read(input: Input): Reading {
  const reading: Reading = { command: text(input.command), path: text(input.path) ?? text(input.file_path) };
  const content = text(input.content);
  if (content !== undefined) reading.diff = lines(content, "+");
  const pairs: Array<{ oldText?: unknown; newText?: unknown }> = Array.isArray(input.edits) ? (input.edits as Input[]) : "oldText" in input ? [input] : [];
  const diff = pairs.flatMap((pair) => [...lines(text(pair.oldText) ?? "", "-"), ...lines(text(pair.newText) ?? "", "+")]);
  if (diff.length > 0) reading.diff = diff;
  return reading;
}

const PREVIEW_LINES = 80;

/** The arguments of a tool call asking for approval, shown so the user knows what they allow. */
export function ToolInput({ input, tooLarge }: { input: unknown; tooLarge?: number }): JSX.Element {
  if (input === undefined) {
    return <p class="request-note">The arguments are too large to show here{tooLarge ? ` (${tooLarge} bytes)` : ""}.</p>;
  }
  const reading = input !== null && typeof input === "object" ? read(input as Input) : {};
  const known = reading.command !== undefined || reading.path !== undefined || reading.diff !== undefined;
  const shown = reading.diff?.slice(0, PREVIEW_LINES);
  return (
    <div class="request-input">
      {reading.command !== undefined && (
        <pre class="request-command" aria-label="Command">
          <code>{reading.command}</code>
        </pre>
      )}
      {reading.path !== undefined && (
        <p class="request-path">
          File: <code>{reading.path}</code>
        </p>
      )}
      {shown && (
        <pre class="request-diff" aria-label="Changes" tabIndex={0}>
          {shown.map((line, i) => (
            <span key={i} class={line.startsWith("+") ? "diff-add" : "diff-del"}>
              {line}
              {"\n"}
            </span>
          ))}
          {reading.diff!.length > shown.length && <span class="diff-more">… {reading.diff!.length - shown.length} more lines</span>}
        </pre>
      )}
      {!known && (
        <pre class="request-json" aria-label="Arguments" tabIndex={0}>
          {JSON.stringify(input, null, 2)}
        </pre>
      )}
    </div>
  );
}
