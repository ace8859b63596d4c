import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, type TestServer } from "../support/harness.js";

let model: ScriptedModelServer;

before(async () => {
  model = await ScriptedModelServer.start();
});
after(async () => {
  await model.close();
});

describe("thread/list: a restarted server's first page from the index", () => {
  test("a thread renamed behind the index by another program is listed as indexed, then every connection hears of the rename", async () => {
    const home = mkdtempSync(join(tmpdir(), "kc-test-trusted-"));
    const servers: TestServer[] = [];
    try {
      const first = await startServer({ model, home });
      servers.push(first);
      const cwd = first.project({}, "trusted");
      const { thread } = await first.main.request("thread/start", { cwd });
      model.enqueue({ text: "re: hello" });
      await first.main.request("turn/start", { threadId: thread.id, text: "hello" });
      await first.main.waitForNotification("thread/turn/completed", (p) => p.threadId === thread.id);
      await first.main.request("thread/list", { cwd });
      await first.close();

      // Another program appends a name entry: the folder's times do not move, the index does not know.
      const lines = readFileSync(thread.sessionFile!, "utf8").trim().split("\n");
      const last = JSON.parse(lines.at(-1)!) as { id: string };
      appendFileSync(
        thread.sessionFile!,
        JSON.stringify({ type: "thread_name", id: "outside0001", parentId: last.id, timestamp: Date.now(), name: "Renamed outside" }) + "\n",
      );

      const second = await startServer({ model, home });
      servers.push(second);
      const listed = await second.main.request("thread/list", { cwd });
      assert.equal(listed.threads[0]!.id, thread.id);
      assert.equal(listed.threads[0]!.name, undefined, "the first page is the index's");
      await second.main.waitForNotification("thread/name/updated", (p) => p.threadId === thread.id && p.name === "Renamed outside");
      const relisted = await second.main.request("thread/list", { cwd });
      assert.equal(relisted.threads[0]!.name, "Renamed outside");
      assert.equal(relisted.threads[0]!.title, "Renamed outside");
    } finally {
      for (const server of servers) {
        await server.close().catch(() => undefined);
        server.cleanup();
      }
      rmSync(home, { recursive: true, force: true });
    }
  });
});
