import type { PayloadRef } from "@knightcode/app-server-protocol";
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Button } from "../../ui/button.js";
import { formatBytes } from "../transcript/payload.js";
import { readPayload } from "../transcript/store.js";
import { VisibleText } from "./visible.js";

/** What a tool call would do, read from its arguments: a command, a path, the lines it changes. */
interface Reading {
  command?: string;
  path?: string;
  /** Lines prefixed "+" or "-", as a unified diff shows them. */
  diff?: string[];
  /** Lines of the diff left out past the preview. */
  moreLines?: number;
}

type Input = Record<string, unknown>;

const PREVIEW_LINES = 80;
/** Past these, a command, a line or the arguments as JSON are cut, and the card says how much is left out. */
const COMMAND_CHARS = 20_000;
const LINE_CHARS = 2_000;

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The first `room` lines of `value`, each prefixed with `sign`, and how many more there are (counted, not split: a write can be megabytes). */
function lines(value: string, sign: "+" | "-", room: number): { shown: string[]; more: number } {
  const body = value.replace(/\n$/, "");
  const shown: string[] = [];
  let at = 0;
  while (shown.length < room) {
    const end = body.indexOf("\n", at);
    shown.push(sign + body.slice(at, end === -1 ? undefined : end));
    if (end === -1) return { shown, more: 0 };
    at = end + 1;
  }
  let more = 1;
  for (let i = body.indexOf("\n", at); i !== -1; i = body.indexOf("\n", i + 1)) more++;
  return { shown, more };
}

/** Reads the shapes the built-in tools use (bash's command, write's content, edit's old and new text); anything else shows as JSON. */
function read(input: Input): Reading {
  const reading: Reading = { command: text(input.command), path: text(input.path) ?? text(input.file_path) };
  const pairs: Array<{ oldText?: unknown; newText?: unknown }> = Array.isArray(input.edits) ? (input.edits as Input[]) : "oldText" in input ? [input] : [];
  const parts: Array<[string, "+" | "-"]> = pairs.flatMap(
    (pair): Array<[string, "+" | "-"]> => [
      [text(pair.oldText) ?? "", "-"],
      [text(pair.newText) ?? "", "+"],
    ],
  );
  const content = text(input.content);
  if (parts.length === 0 && content !== undefined) parts.push([content, "+"]);
  if (parts.length === 0) return reading;
  reading.diff = [];
  reading.moreLines = 0;
  for (const [value, sign] of parts) {
    const { shown, more } = lines(value, sign, PREVIEW_LINES - reading.diff.length);
    reading.diff.push(...shown);
    reading.moreLines += more;
  }
  return reading;
}

/** The arguments of a tool call asking for approval, shown so the user knows what they allow; a reference is read from the server first. */
export function ToolInput({ input, inputRef }: { input: unknown; inputRef?: PayloadRef | undefined }): JSX.Element {
  if (input !== undefined) return <InputView input={input} />;
  if (inputRef !== undefined) return <ReferencedInput key={inputRef.id} payload={inputRef} />;
  return <p class="request-note">The request carries no arguments.</p>;
}

type Loading = { state: "loading" } | { state: "loaded"; input: unknown } | { state: "failed"; message: string };

/**
 * Arguments too large for the request (a whole file to write) come as a
 * payload reference: read and shown, never an empty card, since the user is
 * asked to allow exactly this.
 */
function ReferencedInput({ payload }: { payload: PayloadRef }): JSX.Element {
  const [loading, setLoading] = useState<Loading>({ state: "loading" });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading({ state: "loading" });
    readPayload(payload)
      .then((json) => JSON.parse(json) as unknown)
      .then(
        (input) => current && setLoading({ state: "loaded", input }),
        (error: unknown) => current && setLoading({ state: "failed", message: error instanceof Error ? error.message : String(error) }),
      );
    return () => {
      current = false;
    };
  }, [payload.id, attempt]);
  if (loading.state === "loaded") return <InputView input={loading.input} />;
  if (loading.state === "loading") {
    return (
      <p class="request-note" role="status" aria-busy="true">
        Loading the arguments ({formatBytes(payload.bytes)})…
      </p>
    );
  }
  return (
    <div class="request-load-failed" role="alert">
      <p class="request-note">
        The arguments ({formatBytes(payload.bytes)}) could not be loaded: <VisibleText text={loading.message} />. Decline unless you know what this call does.
      </p>
      <Button onClick={() => setAttempt((n) => n + 1)}>Try again</Button>
    </div>
  );
}

function InputView({ input }: { input: unknown }): JSX.Element {
  const reading = input !== null && typeof input === "object" ? read(input as Input) : {};
  const known = reading.command !== undefined || reading.path !== undefined || reading.diff !== undefined;
  return (
    <div class="request-input">
      {reading.command !== undefined && (
        <pre class="request-command" aria-label="Command" tabIndex={0}>
          <code>
            <VisibleText text={reading.command} multiline ordered limit={COMMAND_CHARS} />
          </code>
        </pre>
      )}
      {reading.path !== undefined && (
        <p class="request-path">
          File:{" "}
          <code>
            <VisibleText text={reading.path} ordered />
          </code>
        </p>
      )}
      {reading.diff && (
        <pre class="request-diff" aria-label="Changes" tabIndex={0}>
          {reading.diff.map((line, i) => (
            <span key={i} class={line.startsWith("+") ? "diff-add" : "diff-del"}>
              <VisibleText text={line} multiline limit={LINE_CHARS} />
              {"\n"}
            </span>
          ))}
          {reading.moreLines! > 0 && <span class="diff-more">… {reading.moreLines!.toLocaleString("en")} more lines</span>}
        </pre>
      )}
      {!known && (
        <pre class="request-json" aria-label="Arguments" tabIndex={0}>
          <VisibleText text={JSON.stringify(input, null, 2) ?? String(input)} multiline limit={COMMAND_CHARS} />
        </pre>
      )}
    </div>
  );
}
