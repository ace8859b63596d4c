import assert from "node:assert/strict";
import { chmodSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startServer, type TestServer } from "../support/harness.js";
import { failsWith } from "./git-repos.js";

let server: TestServer;
let home: string;

before(async () => {
  server = await startServer();
  home = realpathSync(server.home);
});
after(async () => {
  await server.close();
});

/** A folder in the server's home with these subfolders (nested ones by their path) and files. */
function folder(name: string, folders: string[], files: string[] = []): string {
  const root = join(home, name);
  for (const path of folders) mkdirSync(join(root, path), { recursive: true });
  for (const path of files) writeFileSync(join(root, path), "x\n");
  return root;
}

const names = (result: { directories: { name: string }[] }) => result.directories.map((d) => d.name);

describe("directory/list", () => {
  test("the subfolders by name: hidden ones, files and links to files left out; links to folders in", async () => {
    const root = folder("listed", ["zeta/deep", "alpha", "Beta", ".hidden", "mid/inner"], ["readme.md", "alpha.txt"]);
    symlinkSync(join(root, "mid", "inner"), join(root, "linked"));
    symlinkSync(join(root, "readme.md"), join(root, "file-link"));
    symlinkSync(join(root, "nowhere"), join(root, "dangling"));
    const result = await server.main.request("directory/list", { path: root });
    assert.deepEqual(result, {
      path: root,
      directories: ["Beta", "alpha", "linked", "mid", "zeta"].map((name) => ({ name, path: join(root, name) })),
      truncated: false,
    });
    // One level only: the nested folders are listed when asked for.
    assert.deepEqual(names(await server.main.request("directory/list", { path: join(root, "zeta") })), ["deep"]);
    assert.deepEqual(names(await server.main.request("directory/list", { path: `${root}/mid/../zeta/` })), ["deep"]);
    server.assertNoSchemaViolations();
  });

  test("~ and ~/… are the server's home; a relative path is invalidParams", async () => {
    folder("tilde", ["one", "two"]);
    const top = await server.main.request("directory/list", { path: "~" });
    assert.equal(top.path, home);
    assert.ok(names(top).includes("tilde"));
    assert.ok(!names(top).includes(".knightcode"), "hidden folders are left out");
    const inner = await server.main.request("directory/list", { path: "~/tilde" });
    assert.deepEqual(inner.directories, [
      { name: "one", path: join(home, "tilde", "one") },
      { name: "two", path: join(home, "tilde", "two") },
    ]);
    for (const path of ["tilde", "./tilde", "~other/x", "~tilde"]) {
      await failsWith(server.main.request("directory/list", { path }), "invalidParams");
    }
  });

  test("a missing path, a file and a NUL are invalidParams with a message saying which", async () => {
    const root = folder("errors", ["real"], ["file.txt"]);
    const missing = await server.main.rawRequest("directory/list", { path: join(root, "nope") });
    assert.equal(missing.error?.code, "invalidParams");
    assert.match(missing.error!.message, /no such folder/);
    const file = await server.main.rawRequest("directory/list", { path: join(root, "file.txt") });
    assert.equal(file.error?.code, "invalidParams");
    assert.match(file.error!.message, /not a folder/);
    const through = await server.main.rawRequest("directory/list", { path: join(root, "file.txt", "below") });
    assert.equal(through.error?.code, "invalidParams");
    await failsWith(server.main.request("directory/list", { path: `${root}\0` }), "invalidParams");
  });

  test("an unreadable folder is invalidParams saying the server may not read it", {
    skip: process.getuid?.() === 0 ? "root reads every folder" : false,
  }, async () => {
    const root = folder("locked", ["shut/inside"]);
    chmodSync(join(root, "shut"), 0o000);
    try {
      const refused = await server.main.rawRequest("directory/list", { path: join(root, "shut") });
      assert.equal(refused.error?.code, "invalidParams");
      assert.match(refused.error!.message, /may not read/);
    } finally {
      chmodSync(join(root, "shut"), 0o755);
    }
  });

  test("names with newlines and control characters come back as they are", async () => {
    const odd = ["line\nbreak", "bell\u0007", "tab\there", "<b>bold<\\b>", "a&amp;b", "é-accent"];
    const root = folder("odd", odd);
    const result = await server.main.request("directory/list", { path: root });
    assert.deepEqual(names(result), [...odd].sort());
    assert.deepEqual(
      result.directories.map((d) => d.path),
      [...odd].sort().map((name) => join(root, name)),
    );
  });

  test("limit cuts the answer and says so; files never count against it", async () => {
    const root = folder("many", ["a", "b", "c", "d", "e"]);
    const cut = await server.main.request("directory/list", { path: root, limit: 3 });
    assert.equal(cut.truncated, true);
    assert.equal(cut.directories.length, 3);
    assert.deepEqual(names(cut), [...names(cut)].sort());
    const exact = await server.main.request("directory/list", { path: root, limit: 5 });
    assert.deepEqual(exact.truncated, false);
    assert.deepEqual(names(exact), ["a", "b", "c", "d", "e"]);

    // A huge folder: ten thousand files and three folders, then ten thousand folders.
    const files = folder(
      "huge-files",
      ["x", "y", "z"],
      Array.from({ length: 10_000 }, (_, i) => `f${i}.txt`),
    );
    assert.deepEqual(await server.main.request("directory/list", { path: files }), {
      path: files,
      directories: ["x", "y", "z"].map((name) => ({ name, path: join(files, name) })),
      truncated: false,
    });
    const folders = folder(
      "huge-folders",
      Array.from({ length: 10_000 }, (_, i) => `d${i}`),
    );
    const first = await server.main.request("directory/list", { path: folders });
    assert.equal(first.truncated, true);
    assert.equal(first.directories.length, 200, "200 by default");
    const most = await server.main.request("directory/list", { path: folders, limit: 500 });
    assert.equal(most.directories.length, 500);
    server.assertNoSchemaViolations();
  });
});
