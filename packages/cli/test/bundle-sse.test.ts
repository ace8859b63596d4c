import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository's root, from packages/cli/dist/test. */
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const BUNDLE = join(ROOT, "packages", "cli", "dist", "bundle");
const SDKS = ["openai", "@anthropic-ai/sdk"];

interface SseChunks {
  linearSseChunks(text: string, path: string): string;
  SSE_STREAMING_MODULE: RegExp;
}
const load = async () => (await import(pathToFileURL(join(ROOT, "scripts", "lib", "sse-chunks.mjs")).href)) as SseChunks;

describe("the SDKs' event splitter, made linear at build time", () => {
  test("each installed SDK's streaming module changes in one place: the rest of the buffer is viewed, not copied", async () => {
    const { linearSseChunks, SSE_STREAMING_MODULE } = await load();
    for (const sdk of SDKS) {
      const path = join(ROOT, "node_modules", sdk, "core", "streaming.mjs");
      assert.match(path, SSE_STREAMING_MODULE, `the plugin's filter takes ${sdk}`);
      const before = readFileSync(path, "utf8");
      const after = linearSseChunks(before, path);
      const changed = before.split("\n").filter((line, i) => line !== after.split("\n")[i]);
      assert.deepEqual(
        changed.map((line) => line.trim()),
        ["data = data.slice(patternIndex);"],
        sdk,
      );
      assert.equal(after.replace("data = data.subarray(patternIndex);", "data = data.slice(patternIndex);"), before);
    }
  });

  test("a text it was not written for fails the build instead of passing unchanged", async () => {
    const { linearSseChunks } = await load();
    const splitter = "async function* iterSSEChunks(iterator) {\n  data = data.slice(patternIndex);\n}\n";
    assert.throws(() => linearSseChunks("export const x = 1;\n", "/x/streaming.mjs"), /\/x\/streaming\.mjs: iterSSEChunks changed/);
    assert.throws(() => linearSseChunks(splitter + splitter, "/x/streaming.mjs"), /iterSSEChunks changed/, "twice");
    assert.throws(() => linearSseChunks("data = data.slice(patternIndex);\n", "/x/streaming.mjs"), /iterSSEChunks changed/, "outside the splitter");
    assert.match(linearSseChunks(splitter, "/x/streaming.mjs"), /data = data\.subarray\(patternIndex\);/);
  });

  test("the bundle the server runs holds both SDKs' splitters rewritten, and no copying one", () => {
    const text = readdirSync(BUNDLE)
      .filter((name) => name.endsWith(".mjs"))
      .map((name) => readFileSync(join(BUNDLE, name), "utf8"))
      .join("\n");
    assert.equal(text.match(/data\s*=\s*data\.slice\(patternIndex\)/g)?.length ?? 0, 0);
    assert.equal(text.match(/data\s*=\s*data\.subarray\(patternIndex\)/g)?.length ?? 0, SDKS.length);
  });
});
