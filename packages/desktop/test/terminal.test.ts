import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { describeViolations, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

describe("! commands in the composer", { skip: NO_BROWSER }, () => {
  const f = desktopSuite({ model: false });

  test("!ls runs in the thread's folder and shows its output and its end; Stop ends a command that runs on", async () => {
    const client = await f.server.client();
    const project = f.server.project({ "README.md": "# p\n", "notes.txt": "n\n" });
    const { thread } = await client.request("thread/start", { cwd: project });
    const opened = await f.openThread(thread.id);
    const { page } = opened;
    try {
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("!ls; printf 'h\\303\\251llo w\\303\\266rld\\n'");
      await box.press("Enter");
      const panel = page.getByRole("region", { name: "Commands" });
      const output = panel.getByRole("region", { name: /^Output of !ls/ });
      await output.getByText("héllo wörld").waitFor();
      const text = await output.innerText();
      assert.match(text, /README\.md\s+notes\.txt/);
      await panel.locator("[data-state='exited']").getByText("exited 0").waitFor();
      assert.equal(await box.inputValue(), "", "the line left the box");
      assert.deepEqual((await client.request("thread/read", { threadId: thread.id })).turns, [], "no turn: the model saw nothing");

      await box.fill("!echo started; sleep 600");
      await box.press("Enter");
      const running = panel.locator("[data-state='running']");
      await running.getByRole("region", { name: "Output of !echo started; sleep 600" }).getByText("started", { exact: true }).waitFor();
      const violations = await screenAndAudit(page, "commands-panel");
      assert.equal(violations.length, 0, describeViolations(violations));
      await running.getByRole("button", { name: "Stop" }).click();
      await panel.getByText("ended by SIGTERM").waitFor();

      await panel.getByRole("button", { name: "Close the commands panel" }).click();
      await panel.waitFor({ state: "detached" });
      await page.getByRole("button", { name: "Commands" }).click();
      await page.getByRole("region", { name: "Commands" }).getByText("héllo wörld").waitFor();
    } finally {
      await opened.close();
    }
  });

  test("after a server restart, a command and a terminal the server no longer runs say they ended while the page was away", async () => {
    const client = await f.server.client();
    const project = f.server.project({ "README.md": "# p\n" });
    const { thread } = await client.request("thread/start", { cwd: project });
    const opened = await f.openThread(thread.id);
    const { page } = opened;
    try {
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("!echo waiting; sleep 600");
      await box.press("Enter");
      const panel = page.getByRole("region", { name: "Commands" });
      await panel.locator("[data-state='running']").getByText("waiting", { exact: true }).waitFor();
      await panel.getByRole("button", { name: "New terminal" }).click();
      const shell = panel.locator("li.shell[data-process]");
      await shell.and(panel.locator("[data-state='running']")).waitFor();

      // The restart ends both; their ends are sent while the page is not connected.
      await f.restart();
      await panel.locator("li:not(.shell)[data-state='exited']").getByText("ended while the page was away").waitFor();
      await shell.and(panel.locator("[data-state='exited']")).locator(".terminal-state").getByText("ended while the page was away").waitFor();
      await panel.getByRole("button", { name: /^Close Terminal/ }).click();
      await shell.waitFor({ state: "detached" });
      // A request sent after the close is answered after anything the close could have sent.
      await box.fill("!echo after");
      await box.press("Enter");
      await panel.getByRole("region", { name: "Output of !echo after" }).getByText("after", { exact: true }).waitFor();
      assert.equal(await page.getByRole("alert").count(), 0, "closing an ended terminal asks the server nothing");
    } finally {
      await opened.close();
    }
  });
});
