import assert from "node:assert/strict";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { describe, test } from "node:test";
import type { SessionEntry } from "../../src/session/format.js";
import { pageFromIndex, readBranchPage, type BranchCursor, type BranchPageOptions } from "../../src/session/read-page.js";
import { readSession } from "../../src/session/read.js";
import { SessionFile } from "../../src/session/session-file.js";
import { assistantText, mulberry32, rejectsWithCode, tempDir, toolResult, userText } from "./helpers.js";

const dir = tempDir("read-page");

/** A transcript of `turns` turns whose leaf sometimes jumps back, so the file holds several branches. */
async function transcript(seed: number, turns: number): Promise<string> {
  const random = mulberry32(seed);
  const file = await SessionFile.create({ dir, cwd: "/p" });
  file.append({ type: "model_change", provider: "local", modelId: "m" });
  for (let turn = 0; turn < turns; turn++) {
    if (turn > 0 && random() < 0.15) {
      const refs = file.refs();
      file.setLeaf(refs[Math.floor(random() * refs.length)]!.id);
    }
    const start = file.append({ type: "turn_start" });
    file.append({ type: "message", message: userText(`turn ${turn} ${"u".repeat(Math.floor(random() * 3000))}`) });
    for (let call = Math.floor(random() * 3); call > 0; call--) {
      file.append({ type: "message", message: assistantText("a".repeat(Math.floor(random() * 500))) });
      file.append({ type: "message", message: toolResult("r".repeat(Math.floor(random() * 5000))) });
    }
    if (random() < 0.1) file.append({ type: "thread_name", name: `name ${turn}` });
    file.append({ type: "turn_end", turnId: start.id, status: "completed" });
  }
  file.close();
  return file.path;
}

/** Every page from newest to oldest, and the branch they add up to. */
async function allPages(path: string, options: Omit<BranchPageOptions, "cursor">, read = readBranchPage) {
  const pages: SessionEntry[][] = [];
  const readFrom = new Set<string>();
  let cursor: BranchCursor | undefined;
  do {
    const page = await read(path, { ...options, cursor });
    pages.push(page.entries);
    readFrom.add(page.readFrom);
    cursor = page.next;
  } while (cursor !== undefined);
  return { pages, branch: pages.toReversed().flat(), readFrom: [...readFrom] };
}

describe("readBranchPage", () => {
  test("pages add up to the branch, match the full-index pages, and hold the asked number of turns", async () => {
    for (const seed of [1, 2, 3]) {
      const path = await transcript(seed, 40);
      const { entries: branch } = await readSession(path);
      for (const turns of [1, 7, 50]) {
        const fast = await allPages(path, { turns });
        assert.deepEqual(fast.readFrom, ["end"]);
        assert.deepEqual(fast.branch, branch, `seed ${seed}, ${turns} turns`);
        assert.deepEqual(fast.pages, (await allPages(path, { turns }, pageFromIndex)).pages);
        for (const page of fast.pages.slice(0, -1)) assert.equal(page.filter((e) => e.type === "turn_start").length, turns);
        assert.deepEqual(fast.pages[0]!.at(-1), branch.at(-1));
      }
      // Lines longer than a chunk, and chunk edges at every place in a line.
      for (const chunkSize of [97, 1000]) assert.deepEqual((await allPages(path, { turns: 7, chunkSize })).pages, (await allPages(path, { turns: 7 })).pages);
    }
  });

  test("appends after the first page do not shift later pages", async () => {
    const path = await transcript(9, 12);
    const first = await readBranchPage(path, { turns: 5 });
    const before = await allPages(path, { turns: 5 });
    const owner = await SessionFile.open(path);
    for (let i = 0; i < 3; i++) owner.append({ type: "turn_start" });
    owner.close();
    const rest: SessionEntry[][] = [first.entries];
    for (let cursor = first.next; cursor !== undefined; ) {
      const page = await readBranchPage(path, { turns: 5, cursor });
      rest.push(page.entries);
      cursor = page.next;
    }
    assert.deepEqual(rest, before.pages);
  });

  test("a torn tail is skipped and reported; damage further back falls back to the full index with the same pages", async () => {
    const path = await transcript(4, 15);
    const clean = await allPages(path, { turns: 4 });
    appendFileSync(path, '{"type":"turn_start","id":"deadbeef0000","parentId":null,"timest');
    const torn = await readBranchPage(path, { turns: 4 });
    assert.deepEqual(
      torn.issues.map((i) => i.kind),
      ["torn"],
    );
    assert.equal(torn.readFrom, "end");
    assert.deepEqual((await allPages(path, { turns: 4 })).pages, clean.pages);

    const lines = readFileSync(path, "utf8").split("\n");
    lines.splice(lines.length - 20, 1, "not json");
    writeFileSync(path, lines.join("\n"));
    const damaged = await allPages(path, { turns: 4 });
    assert.ok(damaged.readFrom.includes("index"));
    assert.deepEqual(damaged.branch, (await readSession(path)).entries);
    assert.deepEqual(damaged.pages, (await allPages(path, { turns: 4 }, pageFromIndex)).pages);
  });

  test("a thread without entries is one empty page", async () => {
    const file = await SessionFile.create({ dir, cwd: "/p" });
    file.close();
    const page = await readBranchPage(file.path, { turns: 50 });
    assert.deepEqual([page.entries, page.next, page.issues], [[], undefined, []]);
    assert.equal(page.header.id, file.header.id);
  });

  test("a cursor that does not fit the file is notFound", async () => {
    const path = await transcript(5, 6);
    const other = await transcript(6, 6);
    const { next } = await readBranchPage(path, { turns: 2 });
    assert.ok(next);
    const foreign = (await readBranchPage(other, { turns: 2 })).next!;
    for (const cursor of [{ ...next, id: "nope" }, { ...next, before: next.before + 1 }, { ...next, before: 10 ** 12 }, foreign, { id: next.id, before: -1 }]) {
      await rejectsWithCode(readBranchPage(path, { turns: 2, cursor }), "notFound");
    }
    await assert.rejects(readBranchPage(path, { turns: 0 }), RangeError);
  });
});
