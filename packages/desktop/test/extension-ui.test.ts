import { strict as assert } from "node:assert";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { waitUntil } from "@knightcode/testkit";
import { describeViolations, DESKTOP, NARROW, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

const PANEL_VIEW = {
  type: "stack",
  children: [
    { type: "text", text: "Checks" },
    {
      type: "stack",
      direction: "horizontal",
      children: [
        { type: "button", id: "run", label: "Run checks" },
        { type: "toggle", id: "verbose", label: "Verbose", value: false },
        { type: "select", id: "level", options: ["low", "high"], value: "low", label: "Level" },
      ],
    },
    { type: "textField", id: "name", placeholder: "a name", label: "Name" },
  ],
};

/** Shows a status, a working message, a view widget and a lines widget; answers view events with a notice, a status and a file. */
function extension(marker: string): string {
  return `
import { writeFileSync } from "node:fs";
export default function (kc: any) {
  kc.registerTool({
    name: "show",
    description: "Shows a result as a view",
    parameters: { type: "object", properties: {} },
    async execute() {
      kc.sendMessage({ customType: "note", content: "a note", display: true, details: { view: { type: "text", text: "Note drawn as a view" } } });
      const view = { type: "stack", children: [{ type: "text", text: "Result drawn as a view" }, { type: "button", id: "again", label: "Again" }] };
      return { content: [{ type: "text", text: "shown" }], details: { view } };
    },
  });
  kc.on("session_start", (_e: any, ctx: any) => {
    ctx.ui.setStatus("mode", "ready");
    ctx.ui.setWorkingMessage("Polishing the brass");
    ctx.ui.setWidget("panel", ${JSON.stringify(PANEL_VIEW)});
    ctx.ui.setWidget("notes", ["  indented line", "second line"], { placement: "belowEditor" });
    ctx.ui.onViewEvent((event: any) => {
      if (event.id === "run") {
        writeFileSync(${JSON.stringify(marker)}, "ran");
        ctx.ui.notify("Checks ran", "info");
        ctx.ui.setStatus("mode", "checked");
      } else {
        ctx.ui.setStatus("last", event.id + "=" + JSON.stringify(event.value));
      }
    });
  });
}
`;
}

describe("extension UI", { skip: NO_BROWSER }, () => {
  let marker: string;
  const f = desktopSuite({
    server: (suite) => {
      const extensionDir = suite.tempDir("kc-desktop-ext-ui-");
      marker = join(extensionDir, "ran.txt");
      writeFileSync(join(extensionDir, "panel.ts"), extension(marker));
      return { args: ["-e", join(extensionDir, "panel.ts")] };
    },
  });

  async function threadOnPage() {
    const client = await f.server.client();
    const project = f.server.project();
    const { thread } = await client.request("thread/start", { cwd: project });
    const opened = await f.openThread(thread.id);
    await opened.page.locator(".thread-place", { hasText: project }).waitFor();
    return { client, thread, opened };
  }

  test("an extension widget's button pressed: ui/event reaches the extension, whose notice and status show", async () => {
    const { opened } = await threadOnPage();
    const { page } = opened;
    try {
      const widget = page.locator("[data-widget-key='panel']");
      await widget.getByText("Checks", { exact: true }).waitFor();
      await page.locator("[data-widget-key='notes'] pre", { hasText: "  indented line\nsecond line" }).waitFor();
      const status = page.locator("[data-status-key='mode']");
      await status.getByText("ready").waitFor();
      for (const viewport of [DESKTOP, NARROW]) {
        await page.setViewportSize(viewport);
        const violations = await screenAndAudit(page, "extension-widget");
        assert.equal(violations.length, 0, describeViolations(violations));
      }
      await page.setViewportSize(DESKTOP);

      await widget.getByRole("button", { name: "Run checks" }).click();
      await page.locator(".toast", { hasText: "Checks ran" }).waitFor();
      await status.getByText("checked").waitFor();
      await waitUntil("the extension to write its file", () => existsSync(marker), WAIT_MS);
      assert.equal(readFileSync(marker, "utf8"), "ran");

      const last = page.locator("[data-status-key='last']");
      // click, not check: the view's value is what shows until the extension sets the widget again (spec: ui/event).
      await widget.getByRole("switch", { name: "Verbose" }).click();
      await last.getByText("verbose=true").waitFor();
      await widget.getByLabel("Level").selectOption("high");
      await last.getByText('level="high"').waitFor();
      await widget.getByLabel("Name").fill("knight");
      await widget.getByLabel("Name").press("Enter");
      await last.getByText('name="knight"').waitFor();
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });

  test("the working message shows while a turn runs and goes when it ends", async () => {
    const { client, thread, opened } = await threadOnPage();
    const { page } = opened;
    try {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      f.model.enqueue({ text: ["first ", "second"], pauseAfter: 1, gate });
      const working = page.locator(".ext-working");
      assert.equal(await working.textContent(), "");
      await client.request("turn/start", { threadId: thread.id, text: "go" });
      await working.getByText("Polishing the brass").waitFor();
      release();
      await page.locator(".ext-working:empty").waitFor({ state: "attached" });
    } finally {
      await opened.close();
    }
  });

  test("views on a tool call and an extension message are drawn in the transcript, read-only", async () => {
    const { client, thread, opened } = await threadOnPage();
    const { page } = opened;
    try {
      await client.request("thread/settings/update", { threadId: thread.id, approvalMode: "fullAccess" });
      f.model.enqueue({ toolCalls: [{ id: "call_show", name: "show", arguments: {} }] }, { text: "Shown." });
      const done = client.waitFor("turn/completed", (p) => p.threadId === thread.id, { timeoutMs: WAIT_MS });
      await client.request("turn/start", { threadId: thread.id, text: "show it" });
      await done;
      const call = page.locator("[data-item-type='toolCall'][data-item-id='call_show']");
      await call.locator("summary").click();
      await call.getByText("Result drawn as a view").waitFor();
      // On an item a view is for display: its controls send nothing.
      assert.equal(await call.getByRole("button", { name: "Again" }).isDisabled(), true);
      await page.locator("[data-item-type='extensionMessage']").getByText("Note drawn as a view").waitFor();
    } finally {
      await opened.close();
    }
  });
});
