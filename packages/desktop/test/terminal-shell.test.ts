import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import type { Locator, Page } from "playwright-core";
import { hostProcesses, waitUntil, waitUntilAsync } from "@knightcode/testkit";
import { describeViolations, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

/** What a terminal shows, its rows as lines (xterm draws spaces as no-break spaces). */
async function screenMatching(page: Page, name: string, pattern: RegExp): Promise<string> {
  let text = "";
  const look = async () => {
    text = await page.evaluate((label) => {
      const rows = document.querySelector(`[role="region"][aria-label="${label}"] .xterm-rows`);
      return rows ? Array.from(rows.children, (row) => (row.textContent ?? "").replace(/\u00a0/g, " ").trimEnd()).join("\n") : "";
    }, name);
    return pattern.test(text);
  };
  try {
    await waitUntilAsync(`${name} showing ${pattern}`, look, WAIT_MS);
  } catch (error) {
    throw new Error(`${(error as Error).message}; it shows:\n${text}`);
  }
  return text;
}

/** The last `rows cols` line `stty size` printed. */
function lastSize(text: string): [number, number] {
  const sizes = [...text.matchAll(/^(\d+) (\d+)$/gm)];
  const last = sizes.at(-1);
  assert.ok(last, `no size in ${text}`);
  return [Number(last[1]), Number(last[2])];
}

async function typeLine(terminal: Locator, text: string): Promise<void> {
  await terminal.page().keyboard.type(text);
  await terminal.page().keyboard.press("Enter");
}

describe("the terminal panel", { skip: NO_BROWSER }, () => {
  const f = desktopSuite({ model: false });

  test("runs an interactive shell sized to the panel, follows a resize, is found again after a reload, and closing it leaves no process", async () => {
    const client = await f.server.client();
    const project = f.server.project({ "README.md": "# p\n" });
    const { thread } = await client.request("thread/start", { cwd: project });
    const opened = await f.openThread(thread.id);
    const { page } = opened;
    try {
      await page.getByRole("button", { name: "Commands" }).click();
      const panel = page.getByRole("region", { name: "Commands" });
      await panel.getByRole("button", { name: "New terminal" }).click();
      const item = panel.locator("li.shell[data-state='running'][data-process]");
      await item.waitFor();
      const name = (await item.locator(".terminal-command").innerText()).trim();
      const terminal = panel.getByRole("region", { name });
      const processId = (await item.getAttribute("data-process"))!;
      assert.deepEqual(
        (await client.request("command/exec/list", { threadId: thread.id })).processes.map((p) => [p.processId, p.tty]),
        [[processId, true]],
      );

      // The shell reads what is typed: a prompt answered.
      await terminal.click();
      await typeLine(terminal, 'read -p "name? " n; echo "hello $n"');
      await screenMatching(page, name, /^name\?$/m);
      await typeLine(terminal, "Ada");
      await screenMatching(page, name, /^hello Ada$/m);
      // The shell and a job it leaves in the background get names of their own, to be found from outside
      // the sandbox's pid namespace; the job's start is seen on screen before the size is asked.
      const marker = `kc-shell-${process.pid}-${Date.now()}`;
      await typeLine(terminal, `(exec -a ${marker}-job sleep 600) & exec -a ${marker} bash -i`);
      await typeLine(terminal, "echo shell:$0; stty size");
      const before = await screenMatching(page, name, new RegExp(`^shell:${marker}\\n\\d+ \\d+$`, "m"));
      const [rows, cols] = lastSize(before);
      assert.ok(cols > 40 && rows > 5, `sized to the panel: ${rows} ${cols}`);

      const violations = await screenAndAudit(page, "terminal-panel");
      assert.equal(violations.length, 0, describeViolations(violations));

      // A narrower window: the panel, the terminal and the shell's terminal narrow with it.
      await page.setViewportSize({ width: 900, height: 800 });
      await waitUntilAsync(
        "the shell told of a narrower terminal",
        async () => {
          await typeLine(terminal, "stty size");
          const text = await screenMatching(page, name, /^\d+ \d+$/m);
          return lastSize(text)[1] < cols;
        },
        WAIT_MS,
      );
      assert.equal(lastSize(await screenMatching(page, name, /^\d+ \d+$/m))[0], rows, "the height did not change");

      // Hiding the panel hides the terminal, and showing it again shows the same screen, still live.
      await panel.getByRole("button", { name: "Close the commands panel" }).click();
      await terminal.waitFor({ state: "detached" });
      await page.getByRole("button", { name: "Commands" }).click();
      await screenMatching(page, name, /^hello Ada$/m);
      await terminal.click();
      await typeLine(terminal, "echo still:$0");
      await screenMatching(page, name, new RegExp(`^still:${marker}$`, "m"));

      const left = () => hostProcesses((line) => line.startsWith(marker));
      assert.equal(left().length, 2, "the shell and its job run");

      // A reload finds the running shell again, and types into it.
      await page.reload();
      await page.waitForSelector("html[data-ready='true']");
      await page.getByRole("button", { name: "Commands" }).click();
      const found = panel.locator(`li.shell[data-process="${processId}"]`);
      const foundName = (await found.locator(".terminal-command").innerText()).trim();
      await screenMatching(page, foundName, /^Reattached: what it printed before is not shown\.$/m);
      await panel.getByRole("region", { name: foundName }).click();
      await typeLine(terminal, "echo back:$0");
      await screenMatching(page, foundName, new RegExp(`^back:${marker}$`, "m"));

      await found.getByRole("button", { name: `Close ${foundName}` }).click();
      await found.waitFor({ state: "detached" });
      await waitUntilAsync(
        "the shell gone from the thread's commands",
        async () => {
          const { processes } = await client.request("command/exec/list", { threadId: thread.id });
          return processes.every((p) => p.processId !== processId);
        },
        WAIT_MS,
      );
      await waitUntil("the shell and its job gone", () => left().length === 0, WAIT_MS);

      // A shell that exits says how.
      await panel.getByRole("button", { name: "New terminal" }).click();
      const second = panel.locator("li.shell[data-state='running'][data-process]");
      await second.waitFor();
      const secondName = (await second.locator(".terminal-command").innerText()).trim();
      await panel.getByRole("region", { name: secondName }).click();
      await typeLine(terminal, "exit 3");
      await panel.locator("li.shell[data-state='exited'] .terminal-state").getByText("exited with code 3").waitFor();
      await screenMatching(page, secondName, /^exited with code 3$/m);
      assert.deepEqual(opened.consoleErrors, [], "no error, no refused inline style");
    } finally {
      await opened.close();
    }
  });
});
