import assert from "node:assert/strict";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startServer, waitUntil } from "../support/harness.js";
import { deadPid, fakeSpool } from "../support/spools.js";

test("spec: payload references (spool): at start the server removes the spools of dead servers and keeps a live one's", async (t) => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "kc-spool-root-")));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const stale = fakeSpool(root, await deadPid());
  const live = fakeSpool(root, process.pid);
  const server = await startServer({ env: { TMPDIR: root } });
  t.after(() => server.cleanup());
  await waitUntil("the stale spool to go", () => !existsSync(stale));
  await server.waitForStderr(/removed stale payload spools/);
  assert.equal(existsSync(live), true, "a live server's spool stays");
  assert.equal((await server.close()).code, 0);
});
