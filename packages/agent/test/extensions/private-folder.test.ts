import assert from "node:assert/strict";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ExtensionFactoryCache } from "../../src/extensions/factory-cache.js";
import { privateFolder } from "../../src/extensions/private-folder.js";

const root = mkdtempSync(join(tmpdir(), "kc-private-"));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A fresh agent dir and the cache folder under it. */
function layout(): { agentDir: string; cache: string } {
  const agentDir = join(root, `agent-${n++}`);
  return { agentDir, cache: join(agentDir, "cache", "jiti") };
}

const UNIX = process.getuid !== undefined ? false : "no user ids here";
const ROOT = process.getuid?.() === 0 ? false : "needs root to give a folder to another user";

function mode(path: string): number {
  return lstatSync(path).mode & 0o777;
}

describe("the compile cache's private folder", { skip: UNIX }, () => {
  test("made with mode 0700, parent included, without a warning", async () => {
    const { cache } = layout();
    const warnings: string[] = [];
    assert.equal(await privateFolder(cache, (m) => warnings.push(m)), cache);
    assert.equal(mode(cache), 0o700);
    assert.equal(mode(join(cache, "..")), 0o700);
    assert.deepEqual(warnings, []);
  });

  test("ours and closed to writers: kept with what it holds, its mode narrowed to 0700", async () => {
    const { cache } = layout();
    mkdirSync(cache, { recursive: true, mode: 0o755 });
    chmodSync(cache, 0o755);
    writeFileSync(join(cache, "kept.mjs"), "code");
    const warnings: string[] = [];
    assert.equal(await privateFolder(cache, (m) => warnings.push(m)), cache);
    assert.ok(existsSync(join(cache, "kept.mjs")));
    assert.equal(mode(cache), 0o700);
    assert.deepEqual(warnings, []);
  });

  const unsafe: { name: string; skip: string | false; spoil: (cache: string) => void; why: RegExp }[] = [
    { name: "writable by its group", skip: false, spoil: (cache) => chmodSync(cache, 0o770), why: /other users can write in it \(mode 0770\)/ },
    { name: "writable by everyone", skip: false, spoil: (cache) => chmodSync(cache, 0o777), why: /mode 0777/ },
    { name: "another user's", skip: ROOT, spoil: (cache) => chownSync(cache, 12345, 12345), why: /belongs to user 12345/ },
    {
      name: "a link",
      skip: false,
      spoil: (cache) => {
        const elsewhere = `${cache}-elsewhere`;
        rmSync(cache, { recursive: true });
        mkdirSync(elsewhere, { mode: 0o700 });
        writeFileSync(join(elsewhere, "planted.mjs"), "code");
        symlinkSync(elsewhere, cache);
      },
      why: /symbolic link/,
    },
    {
      name: "a file",
      skip: false,
      spoil: (cache) => {
        rmSync(cache, { recursive: true });
        writeFileSync(cache, "not a folder");
      },
      why: /not a folder/,
    },
  ];
  for (const { name, skip, spoil, why } of unsafe) {
    test(`${name}: replaced by an empty private folder, with a warning`, { skip }, async () => {
      const { cache } = layout();
      mkdirSync(cache, { recursive: true, mode: 0o700 });
      writeFileSync(join(cache, "planted.mjs"), "code");
      spoil(cache);
      const warnings: string[] = [];
      assert.equal(await privateFolder(cache, (m) => warnings.push(m)), cache);
      const fresh = lstatSync(cache);
      assert.ok(fresh.isDirectory() && !fresh.isSymbolicLink());
      assert.equal(mode(cache), 0o700);
      assert.deepEqual(readdirSync(cache), [], "nothing planted is kept");
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, why);
      assert.match(warnings[0]!, /extension compile cache/);
      assert.deepEqual(
        readdirSync(join(cache, "..")).filter((entry) => entry.includes("untrusted")),
        [],
        "what was set aside is removed",
      );
    });
  }

  test("a parent others may write is replaced too, with what it holds", async () => {
    const { cache } = layout();
    mkdirSync(cache, { recursive: true, mode: 0o700 });
    writeFileSync(join(cache, "planted.mjs"), "code");
    chmodSync(join(cache, ".."), 0o777);
    const warnings: string[] = [];
    assert.equal(await privateFolder(cache, (m) => warnings.push(m)), cache);
    assert.deepEqual(readdirSync(cache), []);
    assert.equal(mode(join(cache, "..")), 0o700);
    assert.equal(warnings.length, 1);
  });

  test("a cache that cannot be made: extensions still load, without a disk cache, and the warning says so", async () => {
    const { agentDir } = layout();
    mkdirSync(agentDir, { recursive: true });
    // A file where a folder on the way should be: nothing can be made below it.
    writeFileSync(join(agentDir, "blocked"), "a file");
    const extension = join(agentDir, "ext.ts");
    writeFileSync(extension, "export default function () {}\n");
    const warnings: string[] = [];
    const cache = new ExtensionFactoryCache({ diskCache: join(agentDir, "blocked", "agent", "cache", "jiti"), onWarning: (m) => warnings.push(m) });
    const lease = await cache.lease(extension);
    assert.equal(typeof lease.factory, "function");
    lease.release();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /without a disk cache/);
  });
});
