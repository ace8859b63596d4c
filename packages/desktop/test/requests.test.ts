import { strict as assert } from "node:assert";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { ServerRequestParams } from "@knightcode/app-server-protocol";
import { waitUntil } from "@knightcode/testkit";
import { describeViolations, DESKTOP, NARROW, screenAndAudit, type OpenedPage } from "./support/browser.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { askThroughPage, call, cardsFocusedOnArrival, waitForToolResult, watchCardFocus } from "./requests-helpers.js";
import { desktopSuite } from "./support/suite.js";

/** An extension tool that opens the dialogs its input lists and returns the answers as JSON. */
const DIALOGS = `
export default function (kc: any) {
  // A field of the user's own, to type in while a question arrives.
  kc.on("session_start", (_e: any, ctx: any) => ctx.ui.setWidget("memo", { type: "textField", id: "memo", label: "Memo" }));
  kc.registerTool({
    name: "ask",
    description: "Opens dialogs",
    parameters: { type: "object", properties: { dialogs: { type: "array" } }, required: ["dialogs"] },
    async execute(_id: string, params: { dialogs: any[] }, _signal: AbortSignal, _update: unknown, ctx: any) {
      const answers = [];
      for (const d of params.dialogs) {
        if (d.kind === "select") answers.push(await ctx.ui.select(d.title, d.options));
        else if (d.kind === "confirm") answers.push(await ctx.ui.confirm(d.title, d.message));
        else if (d.kind === "input") answers.push(await ctx.ui.input(d.title, d.placeholder));
        else answers.push(await ctx.ui.editor(d.title, d.prefill));
      }
      return { content: [{ type: "text", text: "answers " + JSON.stringify(answers.map((a) => (a === undefined ? null : a))) }], details: {} };
    },
  });
}
`;

describe("request cards", { skip: NO_BROWSER }, () => {
  const f = desktopSuite({
    server: (suite) => {
      const extensionDir = suite.tempDir("kc-desktop-requests-");
      writeFileSync(join(extensionDir, "dialogs.ts"), DIALOGS);
      return { args: ["-e", join(extensionDir, "dialogs.ts")] };
    },
    // Outside plan mode ask_user is offered only when defaultTools names it.
    setup: (suite) => writeFileSync(join(suite.server.agentDir, "settings.json"), JSON.stringify({ defaultTools: ["+ask_user"] })),
  });

  /** A thread in `mode` with a fresh project, and the page open on it. */
  async function threadOnPage(mode: "ask" | "fullAccess", files: Record<string, string> = {}) {
    const client = await f.server.client();
    const project = f.server.project(files);
    const { thread } = await client.request("thread/start", { cwd: project, approvalMode: mode });
    const opened = await f.openThread(thread.id);
    await opened.page.locator(".thread-place", { hasText: project }).waitFor();
    return { client, project, thread, opened };
  }

  async function audit(page: Page, name: string): Promise<void> {
    for (const viewport of [DESKTOP, NARROW]) {
      await page.setViewportSize(viewport);
      const violations = await screenAndAudit(page, name);
      assert.equal(violations.length, 0, describeViolations(violations));
    }
    await page.setViewportSize(DESKTOP);
    await page.emulateMedia({ colorScheme: "dark" });
    const dark = await screenAndAudit(page, `${name}-dark`);
    assert.equal(dark.length, 0, describeViolations(dark));
    await page.emulateMedia({ colorScheme: "light" });
  }

  async function closeAll(opened: OpenedPage): Promise<void> {
    assert.deepEqual(opened.consoleErrors, []);
    await opened.close();
  }

  test("a conversation with a tool call approved from its card", async () => {
    const { thread, project, opened } = await threadOnPage("ask");
    const { page } = opened;
    try {
      const write = call("write", { path: "approved.txt", content: "hello\nworld\n" });
      f.model.enqueue({ toolCalls: [write] }, { text: "written" });
      const asked = await askThroughPage(f.server, thread.id);
      assert.equal(asked.method, "item/toolCall/requestApproval");
      const offered = (asked.params as ServerRequestParams<"item/toolCall/requestApproval">).decisions;
      const card = page.getByRole("group", { name: "Allow write?" });
      await card.waitFor();
      // The buttons are the decisions the server offered, in its order, nothing more.
      const decisions = await card.locator("[data-decision]").evaluateAll((buttons) => buttons.map((b) => b.getAttribute("data-decision")));
      assert.deepEqual(decisions, offered);
      await card.getByText("approved.txt").waitFor();
      await card.locator(".diff-add", { hasText: "+world" }).waitFor();
      // It took the keyboard: the user was not typing anywhere.
      assert.equal(
        await card
          .locator("[data-decision]")
          .first()
          .evaluate((b) => b === document.activeElement),
        true,
      );
      await audit(page, "request-approval");
      await card.getByRole("button", { name: "Allow once" }).click();
      await waitUntil("the file to be written", () => existsSync(join(project, "approved.txt")), WAIT_MS);
      await card.waitFor({ state: "detached" });
      assert.equal(readFileSync(join(project, "approved.txt"), "utf8"), "hello\nworld\n");
      await waitForToolResult(f.model, write.id);
    } finally {
      await closeAll(opened);
    }
  });

  test("a decline with a message reaches the model and nothing is written", async () => {
    const { thread, project, opened } = await threadOnPage("ask");
    const { page } = opened;
    try {
      const write = call("write", { path: "declined.txt", content: "no\n" });
      f.model.enqueue({ toolCalls: [write] }, { text: "ok" });
      await askThroughPage(f.server, thread.id);
      const card = page.getByRole("group", { name: "Allow write?" });
      await card.getByLabel("Message for the agent if you decline (optional)").fill("Use the notes folder instead");
      await card.getByRole("button", { name: "Decline", exact: true }).click();
      await card.waitFor({ state: "detached" });
      const result = await waitForToolResult(f.model, write.id);
      assert.match(result, /Use the notes folder instead/);
      assert.equal(existsSync(join(project, "declined.txt")), false);
    } finally {
      await closeAll(opened);
    }
  });

  test("acceptPrefixForSession shows its prefix, and a second matching command is not asked again", async () => {
    const { thread, opened } = await threadOnPage("ask");
    const { page } = opened;
    try {
      const first = call("bash", { command: "git status" });
      const second = call("bash", { command: "git status --short" });
      f.model.enqueue({ toolCalls: [first] }, { toolCalls: [second] }, { text: "done" });
      const asked = await askThroughPage(f.server, thread.id);
      assert.equal((asked.params as ServerRequestParams<"item/toolCall/requestApproval">).prefix, "git status");
      const card = page.getByRole("group", { name: "Allow bash?" });
      await card.getByLabel("Command").getByText("git status").waitFor();
      await card.locator(".request-prefix code", { hasText: "git status" }).waitFor();
      await card.getByRole("button", { name: "Allow “git status” commands in this session" }).click();
      await card.waitFor({ state: "detached" });
      // The second command ran on the grant: its result reached the model with nobody asked.
      await waitForToolResult(f.model, second.id);
      assert.equal(await page.locator("[data-request-id]").count(), 0);
    } finally {
      await closeAll(opened);
    }
  });

  test("an ask_user answered: back and forth keeps each answer, and the model gets them all", async () => {
    const { thread, opened } = await threadOnPage("ask");
    const { page } = opened;
    try {
      const askUser = call("ask_user", {
        questions: [
          { id: "db", question: "Which database?", options: [{ label: "Postgres (Recommended)", description: "A server" }, { label: "SQLite" }] },
          { id: "name", question: "Project name?", options: [{ label: "kc" }] },
        ],
      });
      f.model.enqueue({ toolCalls: [askUser] }, { text: "thanks" });
      const asked = await askThroughPage(f.server, thread.id);
      assert.equal(asked.method, "item/toolCall/requestUserInput");
      const card = page.getByRole("group", { name: "The agent has questions" });
      await card.getByText("Question 1 of 2").waitFor();
      await card.getByRole("radio", { name: "Postgres (Recommended)" }).check();
      await audit(page, "request-ask-user");
      await card.getByRole("button", { name: "Next" }).click();
      await card.getByText("Project name?").waitFor();
      await card.getByRole("radio", { name: "Something else" }).check();
      await card.getByLabel("Your answer").fill("knight");
      await card.getByRole("button", { name: "Back" }).click();
      // The first answer is still there; change it.
      assert.equal(await card.getByRole("radio", { name: "Postgres (Recommended)" }).isChecked(), true);
      await card.getByRole("radio", { name: "SQLite" }).check();
      await card.getByLabel("Note (optional)").fill("small is fine");
      await card.getByRole("button", { name: "Next" }).click();
      assert.equal(await card.getByLabel("Your answer").inputValue(), "knight");
      await card.getByRole("button", { name: "Submit answers" }).click();
      await card.waitFor({ state: "detached" });
      const result = await waitForToolResult(f.model, askUser.id);
      assert.match(result, /SQLite/);
      assert.match(result, /small is fine/);
      assert.match(result, /knight/);
      assert.doesNotMatch(result, /Postgres/);
    } finally {
      await closeAll(opened);
    }
  });

  test("input, editor and confirm dialogs answered from the keyboard alone", async () => {
    const { thread, opened } = await threadOnPage("fullAccess");
    const { page } = opened;
    try {
      const ask = call("ask", {
        dialogs: [
          { kind: "input", title: "Your name?", placeholder: "a name" },
          { kind: "editor", title: "Commit message", prefill: "draft" },
          { kind: "confirm", title: "Push it?", message: "To origin." },
        ],
      });
      f.model.enqueue({ toolCalls: [ask] }, { text: "ok" });
      await watchCardFocus(page);
      await askThroughPage(f.server, thread.id);
      // Each card takes the keyboard as it appears: nobody was typing elsewhere.
      const name = page.getByRole("group", { name: "Your name?" }).getByLabel("Your answer");
      await name.waitFor();
      await page.getByRole("group", { name: "Your name?" }).locator("input:focus").waitFor();
      await page.keyboard.type("Ada");
      await page.keyboard.press("Enter");
      const editor = page.getByRole("group", { name: "Commit message" }).getByLabel("Text");
      await editor.waitFor();
      assert.equal(await editor.inputValue(), "draft");
      await page.getByRole("group", { name: "Commit message" }).locator("textarea:focus").waitFor();
      await page.keyboard.press("End");
      await page.keyboard.press("Enter");
      await page.keyboard.type("second line");
      await page.keyboard.press("Control+Enter");
      const confirm = page.getByRole("group", { name: "Push it?" });
      await confirm.getByText("To origin.").waitFor();
      // No wait for the focus here: a key pressed the moment a card shows goes to it. Had it gone
      // to the page behind, Escape would have interrupted the turn and the card would be withdrawn.
      await page.keyboard.press("Escape");
      await confirm.waitFor({ state: "detached" });
      const result = await waitForToolResult(f.model, ask.id);
      assert.match(result, /answers \["Ada","draft\\nsecond line",(false|null)\]/);
      assert.deepEqual(await cardsFocusedOnArrival(page), [
        { title: "Your name?", focused: true },
        { title: "Commit message", focused: true },
        { title: "Push it?", focused: true },
      ]);
    } finally {
      await closeAll(opened);
    }
  });

  test("a question arriving while the user types does not take the keyboard; it is announced and one Shift+Tab away", async () => {
    const { thread, opened } = await threadOnPage("fullAccess");
    const { page } = opened;
    try {
      const memo = page.getByLabel("Memo");
      await memo.click();
      await page.keyboard.type("half a thought");
      const ask = call("ask", { dialogs: [{ kind: "confirm", title: "Proceed?", message: "Go on with it." }] });
      f.model.enqueue({ toolCalls: [ask] }, { text: "ok" });
      await askThroughPage(f.server, thread.id);
      const card = page.getByRole("group", { name: "Proceed?" });
      await card.waitFor();
      await page.getByText("1 request waits for your answer").waitFor({ state: "attached" });
      assert.equal(await memo.evaluate((e) => e === document.activeElement), true, "focus stayed in the field being typed in");
      await page.keyboard.type(" more");
      assert.equal(await memo.inputValue(), "half a thought more");
      await page.keyboard.press("Shift+Tab");
      await card.getByRole("button", { name: "Cancel" }).and(page.locator(":focus")).waitFor();
      await page.keyboard.press("Shift+Tab");
      await page.keyboard.press("Shift+Tab");
      await card.getByRole("button", { name: "Yes" }).and(page.locator(":focus")).waitFor();
      await page.keyboard.press("Enter");
      await card.waitFor({ state: "detached" });
      assert.match(await waitForToolResult(f.model, ask.id), /answers \[true\]/);
    } finally {
      await closeAll(opened);
    }
  });

  test("an extension's select dialog answered, and a confirm withdrawn when the turn is interrupted", async () => {
    const { client, thread, opened } = await threadOnPage("fullAccess");
    const { page } = opened;
    try {
      const ask = call("ask", { dialogs: [{ kind: "select", title: "Pick a colour", options: ["red", "green"] }] });
      f.model.enqueue({ toolCalls: [ask] }, { text: "noted" });
      const asked = await askThroughPage(f.server, thread.id);
      assert.equal(asked.method, "ui/dialog");
      const card = page.getByRole("group", { name: "Pick a colour" });
      await card.getByRole("button", { name: "green" }).click();
      await card.waitFor({ state: "detached" });
      assert.match(await waitForToolResult(f.model, ask.id), /answers \["green"\]/);

      const confirm = call("ask", { dialogs: [{ kind: "confirm", title: "Deploy now?", message: "It goes to production." }] });
      f.model.enqueue({ toolCalls: [confirm] }, { text: "stopped" });
      await askThroughPage(f.server, thread.id);
      const confirmCard = page.getByRole("group", { name: "Deploy now?" });
      await confirmCard.getByText("It goes to production.").waitFor();
      await client.request("turn/interrupt", { threadId: thread.id });
      // serverRequest/cancelled took it away: no answer is asked of the user any more.
      await confirmCard.waitFor({ state: "detached" });
      assert.equal(await page.locator("[data-request-id]").count(), 0);
    } finally {
      await closeAll(opened);
    }
  });
});
