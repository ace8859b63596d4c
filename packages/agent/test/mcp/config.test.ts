import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseServerEntry, serverTarget, type McpServerEntry } from "../../src/mcp/config.js";
import { ToolNames } from "../../src/mcp/tool-names.js";
import { convertCallResult } from "../../src/mcp/tool-result.js";

function entry(value: unknown, scope: "global" | "project" = "global"): McpServerEntry {
  const checked = parseServerEntry(value, scope);
  assert.ok(checked.ok, checked.ok ? "" : checked.message);
  return checked.entry;
}

describe("mcp entries", () => {
  test("a checked entry keeps only the fields it knows, as given", () => {
    assert.deepEqual(entry({ command: "node", args: ["a"], env: { A: "1" }, cwd: "sub", enabled: false, exposure: "proxy", description: "d" }), {
      command: "node",
      args: ["a"],
      env: { A: "1" },
      cwd: "sub",
      enabled: false,
      exposure: "proxy",
      description: "d",
    });
    assert.deepEqual(entry({ url: "http://127.0.0.1:3000/mcp", headers: { "X-A": "b" }, auth: { bearerTokenEnv: "TOKEN" } }), {
      url: "http://127.0.0.1:3000/mcp",
      headers: { "X-A": "b" },
      auth: { bearerTokenEnv: "TOKEN" },
    });
  });

  test("refusals name the problem", () => {
    const cases: [unknown, string, RegExp][] = [
      [{ command: "node", args: ["a\0b"] }, "global", /args\[0\] contains a NUL/],
      [{ command: "node", env: { A: "x" }, cwd: "" }, "global", /cwd must not be empty/],
      [{ url: "https://x.test/", auth: { bearerTokenEnv: "TOKEN" } }, "project", /auth is allowed only in the global/],
      [{ url: "https://x.test/", auth: { bearerToken: "raw" } }, "global", /auth: unknown field "bearerToken"/],
      [{ url: "https://x.test/", auth: { bearerTokenEnv: "NOT-A-NAME" } }, "global", /must name an environment variable/],
      [{ url: "javascript:alert(1)" }, "global", /http or https/],
      [{ command: "node", args: Array.from({ length: 257 }, () => "a") }, "global", /more than 256/],
      [{ command: "node", description: "x".repeat(1001) }, "global", /description is longer than 1000/],
    ];
    for (const [value, scope, message] of cases) {
      const checked = parseServerEntry(value, scope as "global" | "project");
      assert.equal(checked.ok, false, JSON.stringify(value));
      assert.match(checked.ok ? "" : checked.message, message);
    }
  });

  test("a target shows the command line, or the URL without password and query values", () => {
    assert.equal(serverTarget(entry({ command: "npx", args: ["-y", "pkg@1", "two words", 'q"uote'] })), 'npx -y pkg@1 "two words" "q\\"uote"');
    assert.equal(
      serverTarget(entry({ url: "https://me:secret@x.test:8443/a/b?key=s1&key=s2&plain=p#frag" })),
      "https://me:***@x.test:8443/a/b?key=***&plain=***",
    );
    assert.equal(serverTarget(entry({ url: "http://127.0.0.1/mcp" })), "http://127.0.0.1/mcp");
  });
});

describe("mcp tool names", () => {
  test("<server>_<tool>, made safe, bounded, unique and never a built-in's", () => {
    const names = new ToolNames();
    assert.equal(names.claim(ToolNames.direct("docs", "search.files")), "docs_search_files");
    assert.equal(names.claim(ToolNames.direct("docs", "search/files")), "docs_search_files_2");
    assert.equal(names.claim(ToolNames.direct("ask", "user")), "ask_user_2");
    const long = names.claim(ToolNames.direct("s", "x".repeat(100)));
    assert.equal(long.length, 64);
    assert.equal(names.claim(ToolNames.direct("s", "x".repeat(100))), `${long.slice(0, 62)}_2`);
    assert.equal(names.claim(ToolNames.proxy("docs")), "mcp_docs");
  });
});

describe("mcp results", () => {
  test("text, images and resources become model content; long text is cut; other content is a placeholder", () => {
    const result = convertCallResult({
      content: [
        { type: "text", text: "hello" },
        { type: "image", data: "aGk=", mimeType: "image/png" },
        { type: "image", data: "aGk=", mimeType: "application/pdf" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "inside" } },
        { type: "resource_link", uri: "file:///b.txt", name: "b" },
        { type: "audio", data: "x", mimeType: "audio/wav" },
      ],
    });
    assert.deepEqual(result.content, [
      { type: "text", text: "hello" },
      { type: "image", data: "aGk=", mimeType: "image/png" },
      { type: "text", text: "[image application/pdf left out]" },
      { type: "text", text: "[resource file:///a.txt]\ninside" },
      { type: "text", text: "[resource link file:///b.txt (b)]" },
      { type: "text", text: "[audio content left out]" },
    ]);
    assert.equal(result.isError, false);
    const long = convertCallResult({
      content: [
        { type: "text", text: "é".repeat(40_000) },
        { type: "text", text: "dropped" },
      ],
      isError: true,
    });
    assert.equal(long.isError, true);
    assert.equal(long.truncated, true);
    assert.equal(long.content.length, 1);
    assert.match((long.content[0] as { text: string }).text, /\[output cut at 50\.0 KiB/);
    assert.deepEqual(convertCallResult({ content: [], structuredContent: { a: 1 } }).content, [{ type: "text", text: '{"a":1}' }]);
  });
});
