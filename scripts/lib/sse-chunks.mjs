import { replaceOnce, sdkModuleFilter, sdkRewritePlugin } from "./sdk-rewrite.mjs";

/**
 * The OpenAI and Anthropic SDKs split a streamed response into events in
 * `iterSSEChunks`. We bundle our own splitter in its place
 * (`splitEvents`, packages/agent/src/run/sse-split.ts), for three reasons:
 *
 * - Theirs copies what is left of the buffer after each event
 *   (`data.slice`): a network chunk of n events is copied n times, work
 *   that grows with the square of the chunk. A model that answers faster
 *   than we read, or a connection catching up after a stall, hands over
 *   64 KiB of a few hundred events at once; with fifty replies streaming,
 *   that copying took a sixth of the server's time. It also joins and
 *   searches an unfinished event again at every read, so one event of many
 *   megabytes costs the square of its reads. Ours is linear in both.
 * - Theirs splits every byte a socket read brought, in microtasks, before
 *   anything else can run: fifty replies bursting at once held the event
 *   loop for half a second, and every first delta waited behind it. Ours
 *   takes a relay slice (packages/agent/src/run/relay-slice.ts) and lets
 *   the loop turn when it is spent, as the relay of the events does.
 * - Theirs keeps an event that never ends without bound: a model server
 *   that streams on without a blank line fills the memory of the process
 *   that hosts every thread. Ours fails the stream past 64 MiB, saying why.
 *
 * Each event it hands on is a copy of its own, and the events, their
 * order and their bytes are exactly theirs. The rewrite is exact: the build
 * fails unless the SDK's function is there once, word for word as this was
 * written for, so an upgrade that changes it cannot slip through.
 */

/** The module rewritten, in either SDK. */
export const SSE_STREAMING_MODULE = sdkModuleFilter("core/streaming.mjs");

/** The SDKs' splitter as this was written for (openai 6.26.0, @anthropic-ai/sdk 0.91.1). */
const THEIRS = `async function* iterSSEChunks(iterator) {
    let data = new Uint8Array();
    for await (const chunk of iterator) {
        if (chunk == null) {
            continue;
        }
        const binaryChunk = chunk instanceof ArrayBuffer ? new Uint8Array(chunk)
            : typeof chunk === 'string' ? encodeUTF8(chunk)
                : chunk;
        let newData = new Uint8Array(data.length + binaryChunk.length);
        newData.set(data);
        newData.set(binaryChunk, data.length);
        data = newData;
        let patternIndex;
        while ((patternIndex = findDoubleNewlineIndex(data)) !== -1) {
            yield data.slice(0, patternIndex);
            data = data.slice(patternIndex);
        }
    }
    if (data.length > 0) {
        yield data;
    }
}`;

/** Ours, in packages/agent/src/run/sse-split.ts: the same events, in linear time, in relay slices, and bounded. */
const OURS = `function iterSSEChunks(iterator) {
    // Replaced at build time by scripts/lib/sse-chunks.mjs.
    return KnightcodeSplitEvents(iterator);
}`;

/** Both splitters' text, for the tests that hold ours to theirs. */
export const SPLITTERS = { theirs: THEIRS, ours: OURS };

/**
 * The loop of `_iterSSEMessages` that turns the events into messages, line
 * by line (the same text in both SDKs; the rest of the function names each
 * SDK's own error class). Ours (`sseMessages`, packages/agent/src/run/
 * sse-messages.ts) decodes an event with no CR in one call and cuts it at
 * its line feeds, and hands the lines to their own event decoder; any other
 * read, and every one after it, goes through their line decoder as before.
 */
const THEIR_MESSAGES = `    const sseDecoder = new SSEDecoder();
    const lineDecoder = new LineDecoder();
    const iter = ReadableStreamToAsyncIterable(response.body);
    for await (const sseChunk of iterSSEChunks(iter)) {
        for (const line of lineDecoder.decode(sseChunk)) {
            const sse = sseDecoder.decode(line);
            if (sse)
                yield sse;
        }
    }
    for (const line of lineDecoder.flush()) {
        const sse = sseDecoder.decode(line);
        if (sse)
            yield sse;
    }`;

const OUR_MESSAGES = `    // Replaced at build time by scripts/lib/sse-chunks.mjs: an event with no CR is decoded whole, not line by line.
    yield* KnightcodeSseMessages(iterSSEChunks(ReadableStreamToAsyncIterable(response.body)), new LineDecoder(), new SSEDecoder());`;

/** Both loops' text, for the tests that hold ours to theirs. */
export const MESSAGE_LOOPS = { theirs: THEIR_MESSAGES, ours: OUR_MESSAGES };

const IMPORTS = [
  'import { splitEvents as KnightcodeSplitEvents } from "@knightcode/agent/run/sse-split";',
  'import { sseMessages as KnightcodeSseMessages } from "@knightcode/agent/run/sse-messages";',
];

/** The module's text with our splitter and our message loop in place of theirs; throws when the text is not the one this was written for. */
export function linearSseChunks(text, path) {
  const why = "scripts/lib/sse-chunks.mjs";
  const split = replaceOnce(text, path, { theirs: THEIRS, ours: OURS, preamble: "", what: "iterSSEChunks", why });
  return replaceOnce(split, path, {
    theirs: THEIR_MESSAGES,
    ours: OUR_MESSAGES,
    preamble: IMPORTS.map((line) => `${line}\n`).join(""),
    what: "_iterSSEMessages",
    why,
  });
}

/** The esbuild plugin applying it to both SDKs. */
export const sseChunksPlugin = sdkRewritePlugin({
  name: "sse-chunks-linear",
  module: "core/streaming.mjs",
  rewrite: linearSseChunks,
  why: "scripts/lib/sse-chunks.mjs",
});

/**
 * Each event is then cut into lines by the SDKs' `LineDecoder`, whose
 * `findNewlineIndex` looks at every byte in a JavaScript loop. In a
 * process's first turns that loop runs interpreted over every byte of a
 * reply; once hot, its optimization competes for the CPU with the reply
 * after it (measured: a second turn's first delta 1-3 ms later on two
 * cores). Ours finds the same line end with native searches: the first
 * `\n` from `startIndex`, and a `\r` before it. The search for `\r` stops
 * at that `\n`, so a buffer of many lines costs no more than theirs.
 */
const THEIR_NEWLINE = `function findNewlineIndex(buffer, startIndex) {
    const newline = 0x0a; // \\n
    const carriage = 0x0d; // \\r
    for (let i = startIndex ?? 0; i < buffer.length; i++) {
        if (buffer[i] === newline) {
            return { preceding: i, index: i + 1, carriage: false };
        }
        if (buffer[i] === carriage) {
            return { preceding: i, index: i + 1, carriage: true };
        }
    }
    return null;
}`;

const OUR_NEWLINE = `function findNewlineIndex(buffer, startIndex) {
    // Replaced at build time by scripts/lib/sse-chunks.mjs: native searches, not a loop over every byte.
    const from = startIndex ?? 0;
    const newline = buffer.indexOf(0x0a, from);
    const carriage = buffer.subarray(from, newline === -1 ? buffer.length : newline).indexOf(0x0d);
    if (carriage !== -1) {
        return { preceding: from + carriage, index: from + carriage + 1, carriage: true };
    }
    return newline === -1 ? null : { preceding: newline, index: newline + 1, carriage: false };
}`;

/** Both line finders' text, for the tests that hold ours to theirs. */
export const NEWLINE_FINDERS = { theirs: THEIR_NEWLINE, ours: OUR_NEWLINE };

/** The line decoder's module with our line finder in place of theirs; throws when the text is not the one this was written for. */
export function nativeNewlineIndex(text, path) {
  return replaceOnce(text, path, { theirs: THEIR_NEWLINE, ours: OUR_NEWLINE, preamble: "", what: "findNewlineIndex", why: "scripts/lib/sse-chunks.mjs" });
}

/** The esbuild plugin applying it to both SDKs. */
export const newlineIndexPlugin = sdkRewritePlugin({
  name: "sse-newline-native",
  module: "internal/decoders/line.mjs",
  rewrite: nativeNewlineIndex,
  why: "scripts/lib/sse-chunks.mjs",
});
