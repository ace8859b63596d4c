import type { JSX } from "preact";

/** A unified diff, each line coloured by its prefix (the prefix stays, so colour is never the only cue). */
export function DiffView({ diff }: { diff: string }): JSX.Element {
  const lines = diff.replace(/\n$/, "").split("\n");
  return (
    <pre class="diff" tabIndex={0} aria-label="Diff">
      {lines.map((line, n) => (
        <span key={n} class={`diff-line ${lineKind(line)}`}>
          {line}
          {"\n"}
        </span>
      ))}
    </pre>
  );
}

function lineKind(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ") || line.startsWith("index ")) return "diff-file";
  if (line.startsWith("@@")) return "diff-hunk";
  if (line.startsWith("+")) return "diff-add";
  if (line.startsWith("-")) return "diff-del";
  return "diff-ctx";
}
