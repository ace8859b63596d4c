import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { matchPaths } from "../../src/search/fuzzy.js";
import { PathList, PathListBuilder } from "../../src/search/path-list.js";

const list = (...paths: string[]) => PathList.parse(paths.map((path) => `${path}\0`).join(""));
const ranked = (query: string, ...paths: string[]) => matchPaths(list(...paths), query, 50).map((match) => match.path);

describe("spec: file/search (SPEC-NOTES: scores and indices)", () => {
  test("a contiguous match at the start of a path segment outranks a scattered one, wherever each lies", () => {
    const cases: [string, string, string][] = [
      ["conf", "x/conf.ts", "cxoxnxf/y.ts"],
      ["conf", "deep/down/here/config.json", "c/o/n/f.md"],
      ["util", "src/util/a.ts", "xuxtxixl.ts"],
      ["main", "lib/main.rs", "m/a/i/n.rs"],
      ["test", "foo/test/a.ts", "tabcestabc.ts"],
      ["index", "a/index.ts", "i/n/d/e/x.ts"],
      ["srcconf", "src/srcConfig.ts", "s/r/c/c/o/n/f.ts"],
    ];
    for (const [query, contiguous, scattered] of cases) {
      assert.deepEqual(ranked(query, scattered, contiguous), [contiguous, scattered], `${query}: ${contiguous} before ${scattered}`);
    }
  });

  test("indices are the matched positions, 0-based, ascending, in UTF-16 units", () => {
    const [match] = matchPaths(list("a/😀x/Foo.ts"), "foo", 5);
    assert.deepEqual(match, { path: "a/😀x/Foo.ts", score: match!.score, indices: [6, 7, 8] });
    const [upper] = matchPaths(list("İstanbul/foo.ts"), "foo", 5);
    assert.deepEqual(upper!.indices, [9, 10, 11]);
    const [scattered] = matchPaths(list("cxoxnxf/y.ts"), "conf", 5);
    assert.deepEqual(scattered!.indices, [0, 2, 4, 6]);
  });

  test("the highlighted alignment is the best one, not the first that fits", () => {
    const [match] = matchPaths(list("cxoxnxf/conf.ts"), "conf", 5);
    assert.deepEqual(match!.indices, [8, 9, 10, 11]);
  });

  test("case is ignored; whitespace separates terms that must all match, in any order", () => {
    assert.deepEqual(ranked("README", "docs/readme.md", "src/main.ts"), ["docs/readme.md"]);
    assert.deepEqual(ranked("config src", "src/config/index.ts", "docs/config.md", "src/main.ts"), ["src/config/index.ts"]);
    const [match] = matchPaths(list("src/config/index.ts"), "index src", 5);
    assert.deepEqual(match!.indices, [0, 1, 2, 11, 12, 13, 14, 15]);
  });

  test("files come by descending score; equal scores put the shorter path first, then code-unit order", () => {
    const matches = matchPaths(list("b/conf.ts", "a/conf.ts", "long/path/conf.ts", "c-o-n-f.txt", "zz.txt"), "conf", 50);
    assert.deepEqual(
      matches.map((m) => m.path),
      ["a/conf.ts", "b/conf.ts", "long/path/conf.ts", "c-o-n-f.txt"],
    );
    for (let i = 1; i < matches.length; i++) assert.ok(matches[i - 1]!.score >= matches[i]!.score);
  });

  test("limit keeps the best; a query that matches nothing answers nothing", () => {
    const paths = Array.from({ length: 500 }, (_, i) => `dir${i % 7}/file${i}.ts`);
    const best = matchPaths(list(...paths), "file1", 500);
    assert.deepEqual(matchPaths(list(...paths), "file1", 3), best.slice(0, 3));
    assert.deepEqual(matchPaths(list(...paths), "qqq", 10), []);
    assert.deepEqual(matchPaths(list(...paths), "   ", 10), []);
  });

  test("paths split over several segments are all searched, and indices stay relative to their path", () => {
    const builder = new PathListBuilder(Infinity);
    builder.add("./one/alpha.ts\0two/be");
    builder.add("ta.ts\0three/alpha.md\0");
    const paths = builder.finish();
    assert.equal(paths.segments.length, 2);
    assert.deepEqual(
      matchPaths(paths, "alpha", 10).map((m) => [m.path, m.indices]),
      [
        ["one/alpha.ts", [4, 5, 6, 7, 8]],
        ["three/alpha.md", [6, 7, 8, 9, 10]],
      ],
    );
    assert.deepEqual(matchPaths(paths, "beta", 10)[0]!.path, "two/beta.ts");
  });

  test("the builder keeps at most maxPaths paths and says when there were more", () => {
    const builder = new PathListBuilder(3);
    assert.equal(builder.add("a\0b\0"), true);
    assert.equal(builder.add("c\0"), true);
    assert.equal(builder.add("d\0"), false);
    const paths = builder.finish();
    assert.equal(paths.count, 3);
    assert.deepEqual(
      [0, 1, 2].map((i) => paths.path(i)),
      ["a", "b", "c"],
    );
  });
});
