import { strict as assert } from "node:assert";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import { initRepo } from "@knightcode/testkit";
import { composerSuite, sent, until } from "./composer-support.js";
import { describeViolations, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER } from "./support/desktop.js";

describe("a user message's menu: rewind to here, fork from here, edit and resend", { skip: NO_BROWSER }, () => {
  const f = composerSuite();

  /** Sends a message from the composer; the model writes `path` and says so. */
  async function turnWriting(page: Page, text: string, path: string): Promise<void> {
    f.model.enqueue({ toolCalls: [{ id: `call_${path}`, name: "write", arguments: { path, content: `${path}\n` } }] }, { text: `Wrote ${path}.` });
    const box = page.getByLabel("Message", { exact: true });
    await box.fill(text);
    await box.press("Enter");
  }

  /** A thread in a fresh repository, open in a page, after two turns that each wrote a file. */
  async function twoTurns(name: string) {
    const client = await f.server.client();
    const repo = initRepo(join(f.server.home, name), { "README.md": "# r\n" });
    const { thread } = await client.request("thread/start", { cwd: repo, approvalMode: "fullAccess" });
    const opened = await f.openThread(thread.id);
    await opened.page.getByLabel("Message", { exact: true }).waitFor();
    await turnWriting(opened.page, "write the first note", "FIRST.md");
    await f.turnsEnded(thread.id, 1);
    await turnWriting(opened.page, "write the second note", "SECOND.md");
    await f.turnsEnded(thread.id, 2);
    return { repo, threadId: thread.id, opened, page: opened.page };
  }

  /** Opens the menu of the `n`-th turn's message and picks `item`. */
  async function pick(page: Page, n: number, item: string): Promise<void> {
    await page.getByRole("button", { name: "Message actions" }).nth(n).click();
    await page.getByRole("menuitem", { name: item }).click();
  }

  test("Rewind to here puts the code and the conversation back to before the message", async () => {
    const { repo, page, opened } = await twoTurns("rewind-menu-repo");
    try {
      assert.ok(existsSync(join(repo, "SECOND.md")));
      await pick(page, 1, "Rewind to here…");
      const dialog = page.getByRole("dialog", { name: "Rewind to here" });
      await dialog.getByRole("radio", { name: "Conversation and code" }).waitFor();
      assert.equal(await dialog.getByRole("radio", { name: "Conversation and code" }).isChecked(), true);
      const violations = await screenAndAudit(page, "rewind-dialog");
      assert.deepEqual(violations, [], describeViolations(violations));
      await dialog.getByRole("button", { name: "Rewind" }).click();
      await page.getByText("Rewound 1 file").waitFor();
      const conversation = page.getByRole("region", { name: "Conversation" });
      await until("the second message to leave the transcript", async () => (await conversation.getByText("write the second note").count()) === 0);
      await conversation.getByText("write the first note").waitFor();
      assert.equal(existsSync(join(repo, "SECOND.md")), false, "the second turn's file is gone");
      assert.equal(existsSync(join(repo, "FIRST.md")), true, "the first turn's stays");
    } finally {
      await opened.close();
    }
  });

  test("a file edited since: the page names it, keeps it when the user says no, and rewinds over it when they confirm", async () => {
    const { repo, threadId, page, opened } = await twoTurns("rewind-edited-repo");
    try {
      // The user edits once the turn's snapshot is taken (a lastTurn read waits for it).
      await (await f.server.client()).request("thread/diff/read", { threadId, scope: "lastTurn" });
      writeFileSync(join(repo, "SECOND.md"), "my own words\n");
      const rewind = async () => {
        await pick(page, 1, "Rewind to here…");
        await page.getByRole("dialog", { name: "Rewind to here" }).getByRole("button", { name: "Rewind" }).click();
        const confirm = page.getByRole("dialog", { name: "Files changed since" });
        await confirm.getByText(/SECOND\.md changed after the turns you are undoing/).waitFor();
        return confirm;
      };
      await (await rewind()).getByRole("button", { name: "Cancel" }).click();
      await page.getByRole("dialog", { name: "Files changed since" }).waitFor({ state: "detached" });
      assert.equal(readFileSync(join(repo, "SECOND.md"), "utf8"), "my own words\n", "said no: the edit stays");
      await page.getByRole("region", { name: "Conversation" }).getByText("write the second note").waitFor();

      await (await rewind()).getByRole("button", { name: "Rewind anyway" }).click();
      await page.getByText("Rewound 1 file").waitFor();
      assert.equal(existsSync(join(repo, "SECOND.md")), false, "confirmed: the turn's file is gone with the edit");
    } finally {
      await opened.close();
    }
  });

  test("Edit and resend rewinds and sends the edited text; Fork from here opens a fork", async () => {
    const { repo, threadId, page, opened } = await twoTurns("resend-menu-repo");
    try {
      await pick(page, 1, "Edit and resend…");
      const dialog = page.getByRole("dialog", { name: "Edit and resend" });
      const box = dialog.getByLabel("Message");
      assert.equal(await box.inputValue(), "write the second note");
      await box.fill("write a better note");
      const since = f.model.requests.length;
      f.model.enqueue({ text: "A better note, then." });
      await dialog.getByRole("button", { name: "Send" }).click();
      const conversation = page.getByRole("region", { name: "Conversation" });
      await conversation.getByText("A better note, then.").waitFor();
      const request = f.requestWith("write a better note", since);
      assert.ok(request, "the edited text reached the model");
      assert.ok(!sent(request).includes("write the second note"), "without the undone turn");
      assert.equal(existsSync(join(repo, "SECOND.md")), false);
      await f.turnsEnded(threadId, 2);

      await pick(page, 0, "Fork from here…");
      await page.getByRole("dialog", { name: "Fork from here" }).getByRole("button", { name: "Fork" }).click();
      await page.getByText(/Forked into/).waitFor();
      await until("the fork to open, before the first message", async () => (await conversation.getByText("write the first note").count()) === 0);
      await page.getByRole("heading", { name: /\(fork\)/ }).waitFor();
    } finally {
      await opened.close();
    }
  });
});
