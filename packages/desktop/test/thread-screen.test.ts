import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { NO_BROWSER } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

describe("the thread screen", { skip: NO_BROWSER }, () => {
  const f = desktopSuite({ model: false });

  test("opens the thread the address names and keeps it there across a reload", async () => {
    const client = await f.server.client();
    const project = f.server.project({ "README.md": "# p\n" });
    const { thread } = await client.request("thread/start", { cwd: project });
    const opened = await f.openThread(thread.id);
    try {
      await opened.page.locator(".thread-place", { hasText: project }).waitFor();
      await opened.page.reload();
      await opened.page.locator(".thread-place", { hasText: project }).waitFor();
      assert.equal(new URL(opened.page.url()).searchParams.get("thread"), thread.id);
    } finally {
      await opened.close();
    }
  });
});
