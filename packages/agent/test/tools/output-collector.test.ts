import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { OutputCollector } from "../../src/tools/output-collector.js";
import { tempDir } from "./support.js";

test("memory holds head, tail and one chunk however much output arrives", async (t) => {
  const dir = await tempDir(t);
  const collector = new OutputCollector({ headBytes: 1000, tailBytes: 2000, spillDir: dir, maxSpillBytes: 1 << 30 });
  const chunk = Buffer.alloc(65536, "a");
  let peak = 0;
  for (let sent = 0; sent < 50_000_000; sent += chunk.length) {
    collector.append(chunk);
    peak = Math.max(peak, collector.retainedBytes);
  }
  await collector.close();
  assert.ok(peak <= 1000 + 2000 + chunk.length, `peak ${peak}`);
  const rendered = collector.render();
  assert.equal(rendered.truncated, true);
  assert.equal((await readFile(rendered.fullOutputPath!)).length, Math.ceil(50_000_000 / 65536) * 65536);
});

test("small output is returned whole and spills nothing", () => {
  const collector = new OutputCollector({ headBytes: 10, tailBytes: 10, maxSpillBytes: 100 });
  collector.append(Buffer.from("hello "));
  collector.append(Buffer.from("world"));
  assert.deepEqual(collector.render(), { text: "hello world", truncated: false });
});

test("cuts fall on line breaks when there are some, and never split a character", () => {
  const lines = new OutputCollector({ headBytes: 20, tailBytes: 20, maxSpillBytes: 0 });
  lines.append(Buffer.from("aaaa\nbbbb\ncccc\ndddd\neeee\nffff\ngggg\nhhhh\niiii\njjjj\n"));
  const { text } = lines.render();
  assert.equal(text, "aaaa\nbbbb\ncccc\ndddd\n\n[... 10 B of output omitted here ...]\ngggg\nhhhh\niiii\njjjj\n");
  const wide = new OutputCollector({ headBytes: 7, tailBytes: 7, maxSpillBytes: 0 });
  wide.append(Buffer.from("é".repeat(20)));
  const cut = wide.render().text;
  assert.ok(!cut.includes("\uFFFD"), cut);
  assert.match(cut, /^é{3}\n\[\.\.\. \d+ B of output omitted here \.\.\.\]\né{3}$/);
});
