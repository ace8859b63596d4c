export type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** How many leading bytes `imageMimeType` needs to decide. */
export const IMAGE_SNIFF_BYTES = 12;

/** The image type given by a file's magic bytes; the name's extension plays no part. */
export function imageMimeType(head: Uint8Array): ImageMimeType | undefined {
  const startsWith = (bytes: readonly number[], at = 0): boolean => bytes.every((byte, i) => head[at + i] === byte);
  if (startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith([0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) return "image/gif";
  if (startsWith([0x52, 0x49, 0x46, 0x46]) && startsWith([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return undefined;
}
