import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { Random, seedFromEnv } from "@knightcode/testkit";
import { ROOT, bundleText } from "./bundle-support.js";

const SDKS = ["openai", "@anthropic-ai/sdk"];

interface SseChunks {
  linearSseChunks(text: string, path: string): string;
  nativeNewlineIndex(text: string, path: string): string;
  SSE_STREAMING_MODULE: RegExp;
  SPLITTERS: { theirs: string; ours: string };
  MESSAGE_LOOPS: { theirs: string; ours: string };
  NEWLINE_FINDERS: { theirs: string; ours: string };
}
const fileImport = async <T>(...parts: string[]) => (await import(pathToFileURL(join(ROOT, ...parts)).href)) as T;
const sseChunks = () => fileImport<SseChunks>("scripts", "lib", "sse-chunks.mjs");

/** A slice as the splitter sees one: due at every `every`-th look, counting its pauses. */
class EveryNth {
  static every = 0;
  static pauses = 0;
  private looks = 0;
  due(): boolean {
    return EveryNth.every > 0 && ++this.looks % EveryNth.every === 0;
  }
  async pause(): Promise<void> {
    EveryNth.pauses++;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

type Splitter = (chunks: AsyncIterable<unknown>) => AsyncIterable<Uint8Array>;

/** Theirs, from the text the build replaces, with the SDK's own helpers it uses. */
async function theirSplitter(text: string): Promise<Splitter> {
  const { findDoubleNewlineIndex } = await fileImport<{ findDoubleNewlineIndex: unknown }>("node_modules", "openai", "internal", "decoders", "line.mjs");
  const { encodeUTF8 } = await fileImport<{ encodeUTF8: unknown }>("node_modules", "openai", "internal", "utils", "bytes.mjs");
  const make = new Function("findDoubleNewlineIndex", "encodeUTF8", `${text}\nreturn iterSSEChunks;`);
  return make(findDoubleNewlineIndex, encodeUTF8) as Splitter;
}

type SplitEvents = (chunks: AsyncIterable<unknown>, options: { slice: EveryNth }) => AsyncIterable<Uint8Array>;

/** Ours: the module the bundle calls in their place, with a slice that is due when the test says. */
async function ourSplitter(): Promise<Splitter> {
  const { splitEvents } = await fileImport<{ splitEvents: SplitEvents }>("packages", "agent", "dist", "src", "run", "sse-split.js");
  return (chunks) => splitEvents(chunks, { slice: new EveryNth() });
}

/** `chunks` handed over one by one, as a response body's reads. */
async function* readsOf(chunks: readonly unknown[]): AsyncGenerator<unknown> {
  for (const chunk of chunks) yield chunk;
}

async function collect(split: Splitter, chunks: unknown[]): Promise<string[]> {
  const out: string[] = [];
  for await (const event of split(readsOf(chunks))) out.push(Buffer.from(event).toString("latin1"));
  return out;
}

/** A stream of events with each separator the format allows (or line feeds only), multi-byte characters, and a torn last event. */
function stream(random: () => number, separators: readonly string[] = ["\n\n", "\r\r", "\r\n\r\n"]): Buffer {
  let text = "";
  for (let i = 0; i < 200; i++) {
    text += `data: {"i":${i},"t":"é漢🙂${"x".repeat(Math.floor(random() * 40))}"}${separators[Math.floor(random() * separators.length)]}`;
  }
  return Buffer.from(`${text}data: torn`);
}

/** `bytes` cut at random places, handed over as bytes or an ArrayBuffer, with an empty read (null) here and there. */
function cut(bytes: Buffer, random: () => number, most: number): unknown[] {
  const chunks: unknown[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(random() * most);
    const piece = new Uint8Array(bytes.subarray(at, at + size));
    const kind = random();
    if (kind < 0.05) chunks.push(null);
    chunks.push(kind < 0.15 ? piece.buffer : piece);
    at += size;
  }
  return chunks;
}

describe("the SDKs' event splitter, replaced at build time", () => {
  test("ours gives exactly the events theirs gives, however the bytes are cut, pausing or not", async () => {
    const { SPLITTERS } = await sseChunks();
    const theirs = await theirSplitter(SPLITTERS.theirs);
    const ours = await ourSplitter();
    const seed = seedFromEnv("SSE_SPLIT_SEED", 31);
    const rng = new Random(seed);
    const random = () => rng.next();
    for (const [most, separators] of [1, 7, 100, 70_000].flatMap((most) => [[most, undefined] as const, [most, ["\n\n"]] as const])) {
      for (const every of [0, 1, 3]) {
        const chunks = cut(stream(random, separators), random, most);
        EveryNth.every = every;
        EveryNth.pauses = 0;
        const expected = await collect(theirs, chunks);
        const label = `pieces of up to ${most} bytes, ${separators ? "line feeds only" : "every separator"}, due every ${every} (SSE_SPLIT_SEED=${seed})`;
        assert.deepEqual(await collect(ours, chunks), expected, label);
        assert.equal(expected.length, 201);
        if (every > 0) assert.ok(EveryNth.pauses >= Math.floor(200 / every) - 1, "a due slice pauses");
        else assert.equal(EveryNth.pauses, 0);
      }
    }
    EveryNth.every = 0;
    assert.deepEqual(
      await collect(ours, ["data: a\n\n", "data: b\n", "\ndata: c"]),
      await collect(theirs, ["data: a\n\n", "data: b\n", "\ndata: c"]),
      "strings",
    );
  });

  test("each installed SDK's streaming module gets our splitter and message loop in place of theirs, and nothing else changes", async () => {
    const { linearSseChunks, SSE_STREAMING_MODULE, SPLITTERS, MESSAGE_LOOPS } = await sseChunks();
    for (const sdk of SDKS) {
      const path = join(ROOT, "node_modules", sdk, "core", "streaming.mjs");
      assert.match(path, SSE_STREAMING_MODULE, `the plugin's filter takes ${sdk}`);
      const before = readFileSync(path, "utf8");
      const after = linearSseChunks(before, path);
      const [splitImport, messagesImport, ...rest] = after.split("\n");
      assert.equal(splitImport, 'import { splitEvents as KnightcodeSplitEvents } from "@knightcode/agent/run/sse-split";', sdk);
      assert.equal(messagesImport, 'import { sseMessages as KnightcodeSseMessages } from "@knightcode/agent/run/sse-messages";', sdk);
      assert.equal(rest.join("\n").replace(SPLITTERS.ours, SPLITTERS.theirs).replace(MESSAGE_LOOPS.ours, MESSAGE_LOOPS.theirs), before, sdk);
    }
  });

  test("a text it was not written for fails the build instead of passing unchanged", async () => {
    const { linearSseChunks, SPLITTERS, MESSAGE_LOOPS } = await sseChunks();
    const both = `${SPLITTERS.theirs}\n${MESSAGE_LOOPS.theirs}`;
    assert.match(linearSseChunks(both, "/x/streaming.mjs"), /return KnightcodeSplitEvents\(iterator\);/);
    const changed = both.replace("data.slice(patternIndex);", "data.subarray(patternIndex);");
    assert.throws(() => linearSseChunks(changed, "/x/streaming.mjs"), /\/x\/streaming\.mjs: iterSSEChunks changed/);
    assert.throws(() => linearSseChunks(SPLITTERS.theirs + both, "/x/streaming.mjs"), /iterSSEChunks changed/, "twice");
    assert.throws(() => linearSseChunks(both.replace("if (sse)", "if (sse != null)"), "/x/streaming.mjs"), /_iterSSEMessages changed/);
    assert.throws(() => linearSseChunks(SPLITTERS.theirs, "/x/streaming.mjs"), /_iterSSEMessages changed/, "missing");
  });

  test("the bundle the server runs holds our splitter and message loop for both SDKs, and none of theirs", () => {
    const text = bundleText();
    assert.equal(text.match(/data\s*=\s*data\.slice\(patternIndex\)/g)?.length ?? 0, 0);
    assert.equal(text.match(/function iterSSEChunks\(iterator\)\{return splitEvents\(iterator\)\}/g)?.length ?? 0, SDKS.length);
    assert.equal(
      text.match(/yield\*sseMessages\(iterSSEChunks\(ReadableStreamToAsyncIterable\(response\.body\)\),new LineDecoder,new SSEDecoder\)/g)?.length ?? 0,
      SDKS.length,
    );
    assert.equal(text.match(/for\s*\(\s*(?:const|let) line of lineDecoder\.decode\(sseChunk\)\)/g)?.length ?? 0, 0);
  });
});

/** A message as the SDKs' event decoder makes one. */
type Message = { event: string | null; data: string; raw: string[] };
type MessagesOf = (chunks: AsyncIterable<unknown>) => AsyncIterable<Message>;

/** Their event decoder's class (and `partition`, which it calls), from the SDK's own text: the module does not export it. */
function theirEventDecoder(): new () => { decode(line: string): Message | null } {
  const text = readFileSync(join(ROOT, "node_modules", "openai", "core", "streaming.mjs"), "utf8");
  const at = text.indexOf("class SSEDecoder {");
  const end = text.indexOf("//# sourceMappingURL");
  assert.ok(at !== -1 && end > at, "the SDK's event decoder is where it was");
  return new Function(`${text.slice(at, end)}\nreturn SSEDecoder;`)();
}

describe("the SDKs' message loop, replaced at build time", () => {
  test("ours gives exactly the messages theirs gives, for any fields, comments, separators, byte order marks and broken UTF-8, however cut", async () => {
    const { MESSAGE_LOOPS } = await sseChunks();
    const { LineDecoder } = await fileImport<{ LineDecoder: new () => { decode(chunk: unknown): string[]; flush(): string[] } }>(
      "node_modules",
      "openai",
      "internal",
      "decoders",
      "line.mjs",
    );
    const SSEDecoder = theirEventDecoder();
    const split = await ourSplitter();
    const theirLoop = new Function(
      "SSEDecoder",
      "LineDecoder",
      "ReadableStreamToAsyncIterable",
      "iterSSEChunks",
      `return async function* (response) {\n${MESSAGE_LOOPS.theirs}\n};`,
    );
    const theirs: MessagesOf = (chunks) => theirLoop(SSEDecoder, LineDecoder, (body: unknown) => body, split)({ body: chunks });
    const { sseMessages } = await fileImport<{ sseMessages: (chunks: AsyncIterable<unknown>, lines: unknown, events: unknown) => AsyncIterable<Message> }>(
      "packages",
      "agent",
      "dist",
      "src",
      "run",
      "sse-messages.js",
    );
    const ours: MessagesOf = (chunks) => sseMessages(split(chunks), new LineDecoder(), new SSEDecoder());
    const seed = seedFromEnv("SSE_SPLIT_SEED", 31);
    const rng = new Random(seed);
    const random = () => rng.next();
    const lines = [
      `data: {"t":"é漢🙂"}`,
      "data:",
      "data:  two spaces",
      "event: response.output_text.delta",
      "event:",
      ": a comment",
      "id: 7",
      "retry: 10",
      "nocolon",
      "data: \ufeffmarked",
      "\ufeffdata: a mark first",
    ];
    const broken = [Buffer.from([0xe2, 0x82]), Buffer.from([0xc3]), Buffer.from([0xff])];
    /** 120 events of one to four lines, each line ended by one of `ends`, each event by one of `blanks`. */
    const drawn = (ends: readonly string[], blanks: readonly string[], marks: boolean) => {
      const parts: Buffer[] = [];
      for (let i = 0; i < 120; i++) {
        for (let n = rng.int(4); n >= 0; n--) {
          const line = rng.pick(lines);
          if (!marks && line.includes("\ufeff")) continue;
          parts.push(Buffer.from(line));
          if (marks && rng.chance(0.05)) parts.push(rng.pick(broken));
          parts.push(Buffer.from(rng.pick(ends)));
        }
        parts.push(Buffer.from(rng.pick(blanks)));
      }
      parts.push(Buffer.from("data: torn"));
      return Buffer.concat(parts);
    };
    async function all(messagesOf: MessagesOf, chunks: unknown[]): Promise<Message[]> {
      const out: Message[] = [];
      for await (const message of messagesOf(readsOf(chunks))) out.push({ event: message.event, data: message.data, raw: [...message.raw] });
      return out;
    }
    let compared = 0;
    const CRS = ["\n", "\r", "\r\n"];
    for (const most of [1, 9, 300, 70_000]) {
      for (const [ends, blanks, marks] of [
        // Line feeds alone: every event is decoded whole.
        [["\n"], ["\n"], false],
        // Marks and broken UTF-8 in them: the events with a mark go line by line, and all after them.
        [["\n"], ["\n"], true],
        // Lines ended by CR or CRLF in events ended by a line feed: the first such event goes line by line.
        [CRS, ["\n"], false],
        // Events ended by CR or CRLF as well.
        [CRS, CRS, true],
      ] as const) {
        const chunks = cut(drawn(ends, blanks, marks), random, most);
        const expected = await all(theirs, chunks);
        const label = `pieces of up to ${most} bytes, lines ended by ${JSON.stringify(ends)}, events by ${JSON.stringify(blanks)}, marks ${marks} (SSE_SPLIT_SEED=${seed})`;
        assert.deepEqual(await all(ours, chunks), expected, label);
        assert.ok(expected.length > 50);
        compared += expected.length;
      }
    }
    assert.ok(compared > 1000, `${compared} messages compared`);
  });
});

type FindNewline = (buffer: Uint8Array, startIndex: number | null) => { preceding: number; index: number; carriage: boolean } | null;
const finder = (text: string) => new Function(`${text}\nreturn findNewlineIndex;`)() as FindNewline;

describe("the SDKs' line finder, replaced at build time", () => {
  test("ours finds the line end theirs finds, for any bytes and any start", async () => {
    const { NEWLINE_FINDERS } = await sseChunks();
    const theirs = finder(NEWLINE_FINDERS.theirs);
    const ours = finder(NEWLINE_FINDERS.ours);
    const seed = seedFromEnv("SSE_SPLIT_SEED", 31);
    const rng = new Random(seed);
    const alphabet = [0x61, 0x0a, 0x0d, 0xc3, 0xa9];
    for (let round = 0; round < 3000; round++) {
      const bytes = Uint8Array.from({ length: rng.int(40) }, () => alphabet[rng.int(alphabet.length)]!);
      for (const start of [null, 0, rng.int(bytes.length + 3)]) {
        assert.deepEqual(ours(bytes, start), theirs(bytes, start), `${JSON.stringify([...bytes])} from ${start} (SSE_SPLIT_SEED=${seed})`);
      }
    }
  });

  test("each installed SDK's line decoder gets our finder in place of theirs, nothing else changes, and a changed text fails the build", async () => {
    const { nativeNewlineIndex, NEWLINE_FINDERS } = await sseChunks();
    for (const sdk of SDKS) {
      const path = join(ROOT, "node_modules", sdk, "internal", "decoders", "line.mjs");
      const before = readFileSync(path, "utf8");
      assert.equal(nativeNewlineIndex(before, path).replace(NEWLINE_FINDERS.ours, NEWLINE_FINDERS.theirs), before, sdk);
    }
    assert.throws(() => nativeNewlineIndex(NEWLINE_FINDERS.theirs.replace("i++", "i += 1"), "/x/line.mjs"), /\/x\/line\.mjs: findNewlineIndex changed/);
  });

  test("the bundle the server runs holds our finder for both SDKs, and no loop over every byte", () => {
    const text = bundleText();
    assert.equal(
      text.match(/function findNewlineIndex\(buffer,startIndex\)\{let from=startIndex\?\?0,newline=buffer\.indexOf\(10,from\)/g)?.length ?? 0,
      SDKS.length,
    );
    assert.equal(text.match(/for\(let i=startIndex\?\?0;i<buffer\.length;i\+\+\)/g)?.length ?? 0, 0);
  });
});
