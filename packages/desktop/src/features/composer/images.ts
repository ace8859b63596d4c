import type { ImageInput } from "@knightcode/app-server-protocol";
import type { DraftImage } from "./drafts.js";

type InlineImage = Extract<ImageInput, { data: string }>;
const TYPES: ReadonlySet<string> = new Set<InlineImage["mimeType"]>(["image/png", "image/jpeg", "image/gif", "image/webp"]);
/** The spec's limits: 20 MiB decoded per image, 32 images per message. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
export const MAX_IMAGES = 32;

let nextKey = 1;

/** What became of the files offered: the images taken, and a sentence per file refused. */
export interface ImageIntake {
  images: DraftImage[];
  refused: string[];
}

/** Reads the image files among `files` into inline images; names each file it refuses and why. */
export async function takeImages(files: readonly File[], already: number): Promise<ImageIntake> {
  const images: DraftImage[] = [];
  const refused: string[] = [];
  for (const file of files) {
    const name = file.name || "pasted image";
    if (!TYPES.has(file.type)) {
      refused.push(`${name} is not a PNG, JPEG, GIF or WebP image`);
    } else if (file.size > MAX_IMAGE_BYTES) {
      refused.push(`${name} is larger than 20 MiB`);
    } else if (already + images.length >= MAX_IMAGES) {
      refused.push(`${name}: a message takes at most ${MAX_IMAGES} images`);
    } else {
      const preview = await dataUrl(file);
      const data = preview.slice(preview.indexOf(",") + 1);
      images.push({ key: nextKey++, name, preview, input: { mimeType: file.type as InlineImage["mimeType"], data } });
    }
  }
  return { images, refused };
}

function dataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error(`cannot read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

/** The files a paste or drop carries. */
export function filesOf(transfer: DataTransfer | null): File[] {
  return transfer ? Array.from(transfer.files) : [];
}
