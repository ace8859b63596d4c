/** The SDKs' line decoder, as ours uses it: given the bytes of one read, the lines they complete. */
export interface SdkLineDecoder {
  decode(chunk: unknown): string[];
  flush(): string[];
}

/** The SDKs' event decoder, as ours uses it: given one line, the message a blank line completes, or null. */
export interface SdkEventDecoder<M> {
  decode(line: string): M | null;
}

const LF = 0x0a;
const CR = 0x0d;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Whether the SDK's line decoder, fed `chunk` with nothing held from the
 * reads before, would give exactly the lines of `chunk` decoded whole and
 * cut at each LF, and hold nothing after it: its bytes are all the lines'
 * (it ends with LF), none of them ends with CR or holds one (the decoder's
 * CR rules), and no line but the first could begin with a byte order mark
 * (a decode of its own, as the SDK makes for each line, drops a leading
 * one; a decode of the whole drops only the first).
 */
function wholeLines(chunk: unknown): chunk is Uint8Array {
  if (!(chunk instanceof Uint8Array) || chunk.length === 0 || chunk[chunk.length - 1] !== LF) return false;
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
  return bytes.indexOf(CR) === -1 && bytes.indexOf(BOM) === -1;
}

/**
 * The messages of a server-sent-event stream whose reads `chunks` yields
 * (our splitter's events, see sse-split.ts), as the model SDKs' own loop
 * makes them (the build puts this in its place, see
 * scripts/lib/sse-chunks.mjs), with their own decoders: the same messages,
 * the same objects, in the same order. Theirs decodes each line of a read
 * on its own: it joins what it holds with the read (a copy), searches for
 * each line's end, and calls the UTF-8 decoder once per line, three or four
 * times an event. A read that the line decoder would take whole (see
 * wholeLines) is decoded here in one call and cut at its LFs; the first
 * read that is not goes to their line decoder, and so does every read after
 * it, so that what it holds from one read to the next is never lost.
 */
export async function* sseMessages<M>(chunks: AsyncIterable<unknown>, lineDecoder: SdkLineDecoder, eventDecoder: SdkEventDecoder<M>): AsyncGenerator<M> {
  const utf8 = new TextDecoder();
  let byLine = false;
  for await (const chunk of chunks) {
    // Nothing, to their line decoder as to ours.
    if (!byLine && (chunk == null || (chunk instanceof Uint8Array && chunk.length === 0))) continue;
    byLine ||= !wholeLines(chunk);
    if (byLine) {
      for (const line of lineDecoder.decode(chunk)) {
        const message = eventDecoder.decode(line);
        if (message) yield message;
      }
      continue;
    }
    const text = utf8.decode(chunk as Uint8Array);
    for (let from = 0, end = text.indexOf("\n"); end !== -1; from = end + 1, end = text.indexOf("\n", from)) {
      const message = eventDecoder.decode(text.slice(from, end));
      if (message) yield message;
    }
  }
  for (const line of lineDecoder.flush()) {
    const message = eventDecoder.decode(line);
    if (message) yield message;
  }
}
