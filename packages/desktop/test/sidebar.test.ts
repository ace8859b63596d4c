import { strict as assert } from "node:assert";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { AppServerClient, WebSocketTransport } from "@knightcode/app-server-client";
import { initRepo, waitUntil } from "@knightcode/testkit";
import { DESKTOP, describeViolations, NARROW, openPage, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

type Client = AppServerClient<WebSocketTransport>;

async function namedThread(client: Client, cwd: string, name: string): Promise<string> {
  const { thread } = await client.request("thread/start", { cwd });
  await client.request("thread/name/set", { threadId: thread.id, name });
  return thread.id;
}

function row(page: Page, threadId: string) {
  return page.locator(`nav.sidebar [data-thread-id="${threadId}"]`);
}

/** Playwright polls the page until the sidebar draws exactly `count` rows. */
async function rowCount(page: Page, count: number): Promise<void> {
  await page.waitForFunction((n) => document.querySelectorAll("nav.sidebar [data-thread-id]").length === n, count);
}

async function sidebarLoaded(page: Page): Promise<void> {
  await page.locator("nav.sidebar[data-loaded='true']").waitFor();
}

async function confirm(page: Page, action: string): Promise<void> {
  await page.getByRole("dialog").getByRole("button", { name: action, exact: true }).click();
  await page.getByRole("dialog").waitFor({ state: "detached" });
}

describe("the sidebar", { skip: NO_BROWSER }, () => {
  let client: Client;
  const ids = new Map<string, string>();
  const projects: string[] = [];
  const f = desktopSuite({
    setup: async (suite) => {
      client = await suite.server.client();
      // 30 threads across 3 projects: more than the sidebar's first page of 25.
      for (const name of ["alpha", "beta", "gamma"]) projects.push(suite.server.project({ "README.md": `# ${name}\n` }, name));
      for (let i = 0; i < 10; i++) {
        for (const [p, name] of ["alpha", "beta", "gamma"].entries()) {
          const title = `${name} task ${String(i).padStart(2, "0")}`;
          ids.set(title, await namedThread(client, projects[p]!, title));
        }
      }
    },
  });

  test("groups 30 threads by project, pages in the rest as the list scrolls, and finds one by title", async () => {
    const opened = await openPage(f.browser, f.server);
    const { page } = opened;
    try {
      await sidebarLoaded(page);
      const first = await page.locator("nav.sidebar [data-thread-id]").count();
      assert.ok(first <= 25, `the first page holds at most 25 rows, drew ${first}`);
      await page.locator(".sidebar-end").scrollIntoViewIfNeeded();
      await rowCount(page, 30);
      for (const name of ["alpha", "beta", "gamma"]) {
        const group = page.getByRole("region", { name: `Project ${name}` });
        assert.equal(await group.locator("[data-thread-id]").count(), 10, `${name} holds its 10 threads`);
      }
      // Collapsing a group hides its rows and says so.
      const toggle = page.getByRole("region", { name: "Project alpha" }).locator(".project-toggle");
      await toggle.click();
      assert.equal(await toggle.getAttribute("aria-expanded"), "false");
      await row(page, ids.get("alpha task 03")!).waitFor({ state: "hidden" });
      await toggle.click();
      await row(page, ids.get("alpha task 03")!).waitFor();

      for (const viewport of [DESKTOP, NARROW]) {
        await page.setViewportSize(viewport);
        const violations = await screenAndAudit(page, "sidebar");
        assert.deepEqual(violations, [], describeViolations(violations));
      }
      await page.setViewportSize(DESKTOP);

      // Ctrl+K is the palette's: the list's own search has Ctrl+Shift+F.
      await page.keyboard.press("Control+Shift+F");
      assert.equal(await page.evaluate(() => document.activeElement?.id), "thread-search");
      await page.getByLabel("Search threads").fill("beta task 07");
      await rowCount(page, 1);
      await row(page, ids.get("beta task 07")!).waitFor();
      await page.getByLabel("Search threads").fill("no such title");
      await page.getByText("No thread title matches.").waitFor();
      await page.getByLabel("Search threads").press("Escape");
      // Without the search the list starts again from the first page, and pages in the rest as it scrolls.
      await rowCount(page, 25);
      await page.locator(".sidebar-end").scrollIntoViewIfNeeded();
      await rowCount(page, 30);
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });

  test("the open thread has its row even when it is older than the first page", async () => {
    const oldest = ids.get("alpha task 00")!;
    const opened = await f.openThread(oldest);
    try {
      await opened.page.locator(`[data-thread-id="${oldest}"] .thread-open[aria-current="page"]`).waitFor();
    } finally {
      await opened.close();
    }
  });

  test("archives with a confirmation, unarchives from Archived, and deletes an archived thread for good", async () => {
    const opened = await openPage(f.browser, f.server);
    const { page } = opened;
    const threadId = ids.get("gamma task 09")!;
    try {
      await sidebarLoaded(page);
      // The oldest thread is on the second page, which nobody scrolled to: the server's search finds it.
      await page.getByLabel("Search threads").fill("alpha task 00");
      await row(page, ids.get("alpha task 00")!).waitFor();
      await rowCount(page, 1);
      await page.getByLabel("Search threads").fill("");
      await rowCount(page, 25);
      await row(page, threadId).getByRole("button", { name: "Archive gamma task 09" }).click();
      await confirm(page, "Archive");
      await row(page, threadId).waitFor({ state: "detached" });

      await page.getByRole("button", { name: "Archived", exact: true }).click();
      await row(page, threadId).getByRole("button", { name: "Unarchive gamma task 09" }).click();
      await row(page, threadId).waitFor({ state: "detached" });
      await page.getByRole("button", { name: "Threads", exact: true }).click();
      await row(page, threadId).waitFor();
      const active = await client.request("thread/list", { limit: 100 });
      assert.ok(
        active.threads.some((t) => t.id === threadId),
        "the server lists it among the active threads again",
      );

      await row(page, threadId).getByRole("button", { name: "Archive gamma task 09" }).click();
      await confirm(page, "Archive");
      await row(page, threadId).waitFor({ state: "detached" });
      await page.getByRole("button", { name: "Archived", exact: true }).click();
      // Dismissing the confirmation keeps the thread.
      await row(page, threadId).getByRole("button", { name: "Delete gamma task 09" }).click();
      await confirm(page, "Cancel");
      await row(page, threadId).getByRole("button", { name: "Delete gamma task 09" }).click();
      await confirm(page, "Delete");
      await row(page, threadId).waitFor({ state: "detached" });
      const archived = await client.request("thread/list", { archived: true, limit: 100 });
      assert.ok(!archived.threads.some((t) => t.id === threadId), "gone from the archived list");
      await assert.rejects(client.request("thread/read", { threadId }));
      ids.delete("gamma task 09");
    } finally {
      await opened.close();
    }
  });

  test("stays live: a thread started elsewhere appears, a finished turn elsewhere marks unread until opened, a running thread shows it", async () => {
    const open = ids.get("beta task 09")!;
    const opened = await f.openThread(open);
    const { page } = opened;
    try {
      await sidebarLoaded(page);
      const started = await namedThread(client, f.server.project({}, "delta"), "delta started elsewhere");
      await row(page, started).waitFor();
      await page.getByRole("region", { name: "Project delta" }).waitFor();

      const other = ids.get("beta task 05")!;
      f.model.enqueue({ text: "done" });
      const run = await client.runTurn(other, "finish something");
      await run.completed;
      await page.locator(`[data-thread-id="${other}"][data-unread="true"]`).waitFor();
      assert.equal(await row(page, open).getAttribute("data-unread"), null, "the open thread is never unread");
      await row(page, other).locator(".thread-open").click();
      await page.locator(`[data-thread-id="${other}"]:not([data-unread])`).waitFor();
      await page.locator(`[data-thread-id="${other}"] .thread-open[aria-current="page"]`).waitFor();

      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      f.model.enqueue({ text: ["working", " on it"], pauseAfter: 1, gate });
      const running = ids.get("gamma task 08")!;
      const slow = await client.runTurn(running, "take your time");
      await page.locator(`[data-thread-id="${running}"][data-status="running"]`).getByText("Running").waitFor();
      release();
      await slow.completed;
      await page.locator(`[data-thread-id="${running}"]:not([data-status])`).waitFor();
      await page.locator(`[data-thread-id="${running}"][data-unread="true"]`).waitFor();
    } finally {
      await opened.close();
    }
  });

  test("badges: waiting on you while an approval is open, failed after a failed turn", async () => {
    const opened = await openPage(f.browser, f.server);
    const { page } = opened;
    const waiting = ids.get("alpha task 08")!;
    let answer!: (decision: "accept" | "decline") => void;
    const off = client.onRequest("item/toolCall/requestApproval", () => new Promise((resolve) => (answer = (decision) => resolve({ decision }))));
    try {
      await sidebarLoaded(page);
      f.model.enqueue({ toolCalls: [{ name: "write", arguments: { path: "asked.txt", content: "x" } }] }, { text: "declined, fine" });
      const run = await client.runTurn(waiting, "write a file");
      await page.locator(`[data-thread-id="${waiting}"][data-status="waiting"]`).getByText("Waiting on you").waitFor();
      await waitUntil("the approval request", () => answer);
      answer("decline");
      await run.completed;
      await page.locator(`[data-thread-id="${waiting}"]:not([data-status])`).waitFor();

      const failing = ids.get("beta task 08")!;
      f.model.enqueue({ status: 400, body: { error: { message: "the scripted model refuses" } } });
      const failed = await client.runTurn(failing, "this will fail");
      const turn = await failed.completed;
      assert.equal(turn.status, "failed");
      await page.locator(`[data-thread-id="${failing}"][data-status="failed"]`).getByText("Failed").waitFor();
    } finally {
      off();
      await opened.close();
    }
  });

  test("New thread asks for the folder, starts a thread there (or in a new worktree) and opens it; the server's refusal shows", async () => {
    const opened = await openPage(f.browser, f.server);
    const { page } = opened;
    try {
      await sidebarLoaded(page);
      const folder = f.server.project({ "a.txt": "a\n" }, "epsilon");
      await page.getByRole("button", { name: "New thread", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "New thread" });
      await dialog.getByLabel("Project folder").fill(folder);
      for (const viewport of [DESKTOP, NARROW]) {
        await page.setViewportSize(viewport);
        const violations = await screenAndAudit(page, "new-thread-dialog");
        assert.deepEqual(violations, [], describeViolations(violations));
      }
      await page.setViewportSize(DESKTOP);
      await dialog.getByRole("button", { name: "Start thread" }).click();
      await dialog.waitFor({ state: "detached" });
      await page.locator(".thread-place", { hasText: folder }).waitFor();
      const threadId = new URL(page.url()).searchParams.get("thread")!;
      await row(page, threadId).waitFor();
      await page.getByRole("region", { name: "Project epsilon" }).locator(`[data-thread-id="${threadId}"]`).waitFor();

      // The keyboard opens it too, offering the open thread's folder; a worktree needs a git repository.
      await page.keyboard.press("Control+Shift+O");
      assert.equal(await dialog.getByLabel("Project folder").inputValue(), folder);
      await dialog.getByLabel("Run in a new worktree").check();
      await dialog.getByRole("button", { name: "Start thread" }).click();
      await dialog.getByRole("alert").waitFor();
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "detached" });

      const repo = initRepo(join(f.server.home, "zeta"));
      await page.getByRole("button", { name: "New thread", exact: true }).click();
      await dialog.getByLabel("Project folder").fill(repo);
      await dialog.getByLabel("Run in a new worktree").check();
      await dialog.getByRole("button", { name: "Start thread" }).click();
      await dialog.waitFor({ state: "detached" });
      await page.locator(".thread-place", { hasText: "worktree" }).waitFor();
      const worktreeId = await waitUntil("the worktree thread's address", () => {
        const id = new URL(page.url()).searchParams.get("thread");
        return id && id !== threadId ? id : undefined;
      });
      const worktreeRow = page.getByRole("region", { name: "Project zeta" }).locator(`[data-thread-id="${worktreeId}"]`);
      await worktreeRow.locator(".badge-worktree").waitFor();
      const { thread } = await client.request("thread/read", { threadId: worktreeId });
      assert.equal(thread.workspaceMode, "worktree");
      assert.equal(thread.cwd, repo);

      // A project's own button starts one there without asking.
      await page.getByRole("button", { name: "New thread in epsilon" }).click();
      await waitUntil("a third thread", () => {
        const id = new URL(page.url()).searchParams.get("thread");
        return id && id !== threadId && id !== worktreeId ? id : undefined;
      });
      assert.equal(await page.getByRole("region", { name: "Project epsilon" }).locator("[data-thread-id]").count(), 2);
    } finally {
      await opened.close();
    }
  });
});
