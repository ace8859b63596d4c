import { strict as assert } from "node:assert";
import { join } from "node:path";
import { describe, test } from "node:test";
import { initRepo, waitUntil } from "@knightcode/testkit";
import { composerSuite, held, until } from "./composer-support.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";

/** What a turn's footer says of its cost: "1,234 in · 56 out · $0.0000". */
const USAGE = /^(\d[\d,]*) in · (\d[\d,]*) out/;

describe("a turn's details: its changes, its steers, its usage", { skip: NO_BROWSER }, () => {
  const f = composerSuite();

  test('"N files changed" under the turn opens that turn\'s diff in the changes panel', async () => {
    const client = await f.server.client();
    const repo = initRepo(join(f.server.home, "turn-diff-repo"), { "README.md": "# r\n" });
    const { thread } = await client.request("thread/start", { cwd: repo, approvalMode: "fullAccess" });
    const opened = await f.openThread(thread.id);
    const { page } = opened;
    try {
      f.model.enqueue({ toolCalls: [{ id: "call_write", name: "write", arguments: { path: "NOTES.md", content: "first note\n" } }] }, { text: "Wrote it." });
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("write a note");
      await box.press("Enter");
      const changed = page.getByRole("button", { name: /1 file changed/ });
      await changed.click();
      const panel = page.getByRole("complementary", { name: "Changes" });
      assert.equal(await panel.getByLabel("Show").inputValue(), "lastTurn");
      await panel.getByText("NOTES.md").first().waitFor();
      await panel.getByText("first note").first().waitFor();
    } finally {
      await opened.close();
    }
  });

  test("a message handed to a running turn shows marked as a steer; the one that started it does not", async () => {
    const { threadId, opened, page } = await f.newThread();
    const hold = held();
    try {
      await f.steerHeldTurn(page, threadId, hold);
      const conversation = page.getByRole("region", { name: "Conversation" });
      const steer = conversation.locator(".item", { hasText: "also check the tests" });
      await steer.getByText("Steer", { exact: true }).waitFor();
      assert.equal(await conversation.locator(".item", { hasText: "start the work" }).getByText("Steer", { exact: true }).count(), 0);
      // A reload draws it from history the same way.
      await page.reload();
      await conversation.locator(".item", { hasText: "also check the tests" }).getByText("Steer", { exact: true }).waitFor();
    } finally {
      hold.release();
      await opened.close();
    }
  });

  test("an interrupted turn shows the usage of the replies it had", async () => {
    const { opened, page } = await f.newThread();
    const hold = held();
    try {
      f.model.enqueue(
        { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "README.md" } }], usage: { input: 1200, output: 30 } },
        { text: ["partly", " more"], pauseAfter: 1, gate: hold.gate },
      );
      const before = f.model.requests.length;
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("a job to stop");
      await box.press("Enter");
      // The second reply is under way (the first, with its usage, is done) when the user stops the turn.
      await waitUntil("the reply after the tool call to start", () => f.model.requests.length >= before + 2, WAIT_MS);
      await page.getByRole("button", { name: "Interrupt" }).click();
      const turn = page.locator(".turn[data-turn-status='interrupted']");
      await turn.waitFor();
      const usage = await until("the interrupted turn's usage", async () => {
        const text =
          (await turn
            .locator(".turn-usage")
            .textContent({ timeout: 100 })
            .catch(() => null)) ?? "";
        return USAGE.exec(text) ?? undefined;
      });
      assert.ok(Number(usage[1]!.replace(/,/g, "")) >= 1200, `input counted: ${usage[0]}`);
      assert.ok(Number(usage[2]!.replace(/,/g, "")) >= 30, `output counted: ${usage[0]}`);
    } finally {
      hold.release();
      await opened.close();
    }
  });
});
