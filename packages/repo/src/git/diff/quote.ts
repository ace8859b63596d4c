/** Letters git uses for the control characters it escapes by name. */
const NAMED: Record<number, string> = { 7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r", 0x22: '"', 0x5c: "\\" };

function needsQuote(byte: number): boolean {
  return byte < 0x20 || byte === 0x22 || byte === 0x5c || byte >= 0x7f;
}

/**
 * A path as git writes it in a patch header with `core.quotePath` on: as it
 * is, or in double quotes with C escapes (named ones for the usual control
 * characters, three octal digits for the rest and for every byte past
 * ASCII) when any byte needs one.
 */
export function quotePath(bytes: Buffer): string {
  if (!bytes.some(needsQuote)) return bytes.toString("latin1");
  let out = '"';
  for (const byte of bytes) {
    if (!needsQuote(byte)) out += String.fromCharCode(byte);
    else if (NAMED[byte] !== undefined) out += `\\${NAMED[byte]}`;
    else out += `\\${byte.toString(8).padStart(3, "0")}`;
  }
  return `${out}"`;
}
