import { isRow, type IndexedFile, type Row } from "./record.js";

/** A transcript's row as it was served and as a look found it: `before` absent for one that appeared, `after` for one that went. */
export interface FolderChange {
  before?: Row;
  after?: Row;
}

/**
 * The rows that differ between two record maps of one folder. A look keeps
 * the very record of a file whose stat still matches, so identity tells an
 * unchanged record; files that are not transcripts are left out.
 */
export function changesBetween(before: ReadonlyMap<string, IndexedFile>, after: ReadonlyMap<string, IndexedFile>): FolderChange[] {
  const changes: FolderChange[] = [];
  const rowOf = (file: IndexedFile | undefined) => (file !== undefined && isRow(file) ? file : undefined);
  for (const [name, file] of after) {
    const previous = before.get(name);
    if (previous === file) continue;
    const was = rowOf(previous);
    const now = rowOf(file);
    if (was !== undefined || now !== undefined) changes.push({ ...(was === undefined ? {} : { before: was }), ...(now === undefined ? {} : { after: now }) });
  }
  for (const [name, previous] of before) {
    const was = rowOf(previous);
    if (was !== undefined && !after.has(name)) changes.push({ before: was });
  }
  return changes;
}
