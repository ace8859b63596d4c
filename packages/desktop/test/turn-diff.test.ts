import { strict as assert } from "node:assert";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import { initRepo } from "@knightcode/testkit";
import { composerSuite, until } from "./composer-support.js";
import { describeViolations, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER } from "./support/desktop.js";

describe('"N files changed" under any turn opens that turn\'s diff', { skip: NO_BROWSER }, () => {
  const f = composerSuite();

  /** Sends a message from the composer; the model writes `path` and says so. */
  async function turnWriting(page: Page, text: string, path: string, content: string): Promise<void> {
    f.model.enqueue({ toolCalls: [{ id: `call_${path}`, name: "write", arguments: { path, content } }] }, { text: `Wrote ${path}.` });
    const box = page.getByLabel("Message", { exact: true });
    await box.fill(text);
    await box.press("Enter");
  }

  test("the first of two turns opens read-only on its own file, the last with its Undo", async () => {
    const client = await f.server.client();
    const repo = initRepo(join(f.server.home, "older-turn-repo"), { "README.md": "# r\n" });
    const { thread } = await client.request("thread/start", { cwd: repo, approvalMode: "fullAccess" });
    const opened = await f.openThread(thread.id);
    const { page } = opened;
    try {
      const changed = page.getByRole("button", { name: /1 file changed/ });
      await turnWriting(page, "write the first note", "FIRST.md", "first note\n");
      await changed.first().waitFor();
      await turnWriting(page, "write the second note", "SECOND.md", "second note\n");
      await changed.nth(1).waitFor();

      await changed.first().click();
      const panel = page.getByRole("complementary", { name: "Changes" });
      await panel.getByText("An earlier turn: “write the first note”").waitFor();
      const shown = () => panel.getByRole("heading", { level: 3 }).allTextContents();
      await until("the first turn's file", async () => ((await shown()).length > 0 ? true : undefined)).catch(async (error: unknown) => {
        throw new Error(`${(error as Error).message}; the panel says: ${await panel.textContent()}`);
      });
      assert.deepEqual(await shown(), ["FIRST.md"]);
      await panel.getByRole("region", { name: "FIRST.md" }).getByText("first note").waitFor();
      assert.equal(await panel.getByRole("button", { name: "Undo turn" }).count(), 0, "no Undo for an earlier turn");
      assert.equal(await panel.getByRole("button", { name: /^Revert/ }).count(), 0, "nothing to revert");
      const violations = await screenAndAudit(page, "changes-earlier-turn");
      assert.deepEqual(violations, [], describeViolations(violations));

      await changed.nth(1).click();
      await panel.getByRole("button", { name: "Undo turn" }).waitFor();
      await until("the last turn's file", async () => ((await shown()).join() === "SECOND.md" ? true : undefined));
      assert.equal(await panel.getByText(/An earlier turn/).count(), 0);
    } finally {
      await opened.close();
    }
  });
});
