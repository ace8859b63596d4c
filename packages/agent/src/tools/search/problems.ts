import { errnoCode } from "../errors.js";

/** Paths a search could not read: counted, the first one described, for a note under the results. */
export class Problems {
  private count = 0;
  private first = "";

  add(error: unknown): void {
    // Gone between being listed and being opened: nothing was there to search.
    if (errnoCode(error) === "ENOENT") return;
    if (this.count++ === 0) this.first = error instanceof Error ? error.message : String(error);
  }

  note(): string {
    if (this.count === 0) return "";
    return `${this.count} path(s) could not be read, such as: ${this.first}`;
  }
}
