import { randomFillSync } from "node:crypto";

const idPool = Buffer.alloc(6 * 512);
let idPoolAt = idPool.length;

/** An entry's id: 12 hex characters, drawn from a pooled buffer because appends are frequent. */
export function randomEntryId(): string {
  if (idPoolAt >= idPool.length) {
    randomFillSync(idPool);
    idPoolAt = 0;
  }
  idPoolAt += 6;
  return idPool.toString("hex", idPoolAt - 6, idPoolAt);
}
