import type { JSX } from "preact";
import type { DiffFile } from "@knightcode/app-server-protocol";

/** The changed files, each a button that brings its section into view. */
export function FileIndex({ files }: { files: DiffFile[] }): JSX.Element {
  return (
    <nav aria-label="Changed files">
      <ul class="ws-file-list">
        {files.map((file, i) => (
          <li key={file.path}>
            <button type="button" class="ws-link" onClick={() => jumpTo(`ws-file-${i}`)}>
              {file.path}
            </button>{" "}
            <Counts file={file} />
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Brings a file's heading into view and puts focus there, without touching the address (its fragment carried the token). */
function jumpTo(id: string): void {
  const heading = document.getElementById(id);
  heading?.scrollIntoView({ block: "start" });
  heading?.focus({ preventScroll: true });
}

export function summary(files: DiffFile[]): string {
  if (files.length === 0) return "No changes in this scope.";
  const add = files.reduce((n, f) => n + f.additions, 0);
  const del = files.reduce((n, f) => n + f.deletions, 0);
  return `${files.length} ${files.length === 1 ? "file" : "files"} changed, ${add} added and ${del} removed lines.`;
}

export function Counts({ file }: { file: DiffFile }): JSX.Element {
  return (
    <span class="ws-counts">
      <span class="ws-count-add">
        +{file.additions}
        <span class="visually-hidden"> added</span>
      </span>{" "}
      <span class="ws-count-del">
        −{file.deletions}
        <span class="visually-hidden"> removed</span>
      </span>
    </span>
  );
}

export function FileNotes({ file }: { file: DiffFile }): JSX.Element | null {
  const notes: string[] = [];
  if (file.oldPath) notes.push(`Renamed from ${file.oldPath}.`);
  if (file.binary) notes.push("Binary file: no lines to show.");
  if (file.tooLarge) notes.push("Too large to show here; the counts stay.");
  if (!file.binary && !file.tooLarge && file.hunks.length === 0 && file.status === "modified") notes.push("Only the file's mode changed.");
  if (notes.length === 0) return null;
  return <p class="ws-note">{notes.join(" ")}</p>;
}
