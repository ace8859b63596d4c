import { isAbsolute } from "node:path";
import type { ImageContent } from "@mariozechner/pi-ai";
import { imageMimeType } from "@knightcode/agent/tools/image";
import { NotRegularFileError, readRegularFile } from "@knightcode/system/fs/regular-file";
import type { ClientRequestParams } from "@knightcode/app-server-protocol";
import { rpcError } from "../rpc/errors.js";

export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

type ImageInput = NonNullable<ClientRequestParams<"turn/start">["images"]>[number];

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A path the client names is opened only when it is a regular file: a FIFO
 * would otherwise hold one of the few threads every file operation of the
 * server shares until someone writes to it.
 */
async function readImageFile(path: string, where: string): Promise<ImageContent> {
  if (!isAbsolute(path)) throw rpcError("invalidParams", `${where}.path must be absolute`);
  let data: Buffer;
  try {
    data = await readRegularFile(path, MAX_IMAGE_BYTES);
  } catch (error) {
    if (error instanceof NotRegularFileError) throw rpcError("invalidParams", `${where}.path is ${error.kind}, not a regular file`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EISDIR") throw rpcError("invalidParams", `${where}.path is not a regular file`);
    throw rpcError("invalidParams", `${where}.path ${code === "ENOENT" ? "does not exist" : `cannot be read (${code})`}`);
  }
  if (data.length > MAX_IMAGE_BYTES)
    throw rpcError("invalidParams", `${where}.path is larger than ${MAX_IMAGE_BYTES} bytes; images are limited to ${MAX_IMAGE_BYTES}`);
  const mimeType = imageMimeType(data);
  if (!mimeType) throw rpcError("invalidParams", `${where}.path is not a PNG, JPEG, GIF or WebP image`);
  return { type: "image", mimeType, data: data.toString("base64") };
}

function decodeInline(image: { mimeType: string; data: string }, where: string): ImageContent {
  const data = image.data.replace(/\s+/g, "");
  if (data.length % 4 !== 0 || !BASE64.test(data)) throw rpcError("invalidParams", `${where}.data is not base64`);
  const bytes = Buffer.from(data, "base64");
  if (bytes.length > MAX_IMAGE_BYTES)
    throw rpcError("invalidParams", `${where}.data decodes to ${bytes.length} bytes; images are limited to ${MAX_IMAGE_BYTES}`);
  const actual = imageMimeType(bytes);
  if (actual !== image.mimeType) {
    throw rpcError("invalidParams", `${where}.data is ${actual ? `a ${actual} image` : "not a PNG, JPEG, GIF or WebP image"}, not ${image.mimeType}`);
  }
  return { type: "image", mimeType: image.mimeType, data };
}

/** Checks and loads a turn's images: absolute paths to real image files of at most 20 MiB, or inline base64. */
export async function resolveImages(images: readonly ImageInput[] | undefined): Promise<ImageContent[]> {
  const out: ImageContent[] = [];
  for (const [i, image] of (images ?? []).entries()) {
    const where = `params.images[${i}]`;
    out.push("path" in image ? await readImageFile(image.path, where) : decodeInline(image, where));
  }
  return out;
}
