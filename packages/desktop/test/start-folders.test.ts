import { strict as assert } from "node:assert";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import { waitUntilAsync } from "@knightcode/testkit";
import { describeViolations, openPage, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

/** The option the project field points at, by its text; undefined when none is active. */
async function activeOption(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const id = document.getElementById("start-project")?.getAttribute("aria-activedescendant");
    return id ? (document.getElementById(id)?.textContent ?? undefined) : undefined;
  });
}

describe("the first screen's project folder completes folders", { skip: NO_BROWSER }, () => {
  let project: string;
  let parent: string;
  const f = desktopSuite({
    server: (suite) => {
      project = suite.tempDir("kc-start-folders-");
      writeFileSync(join(project, "README.md"), "# started here\n");
      return { cwd: project };
    },
    setup: (suite) => {
      parent = realpathSync(suite.server.project({}, "workspaces"));
      for (const dir of ["alpha-one", "alpha-two/inner", "beta", ".alpha-hidden"]) mkdirSync(join(parent, dir), { recursive: true });
      writeFileSync(join(parent, "alpha-file.txt"), "not a folder\n");
    },
  });

  test("typing a folder's path offers its matching subfolders; arrows and Enter take one, and a message starts the thread there", async () => {
    const opened = await openPage(f.browser, f.server);
    const { page } = opened;
    try {
      await page.locator("nav.sidebar[data-loaded='true']").waitFor();
      const field = page.getByRole("combobox", { name: "Project folder" });
      assert.equal(await field.inputValue(), project);
      assert.equal(await field.getAttribute("aria-expanded"), "false");

      // Emptied, the field offers the recent projects.
      await field.fill("");
      await page.getByRole("listbox", { name: "Recent projects" }).getByRole("option", { name: project }).waitFor();

      await field.pressSequentially(`${parent}/al`);
      const folders = page.getByRole("listbox", { name: "Folders" });
      await folders.getByRole("option", { name: "alpha-two/" }).waitFor();
      assert.deepEqual(await folders.getByRole("option").allTextContents(), ["alpha-one/", "alpha-two/"], "no file, no hidden folder, nothing not matching");
      assert.equal(await field.getAttribute("aria-expanded"), "true");
      const violations = await screenAndAudit(page, "start-folders");
      assert.equal(violations.length, 0, describeViolations(violations));

      await field.press("ArrowDown");
      await field.press("ArrowDown");
      await waitUntilAsync("alpha-two to be the active option", async () => (await activeOption(page)) === "alpha-two/", WAIT_MS);
      assert.equal(await folders.getByRole("option", { name: "alpha-two/" }).getAttribute("aria-selected"), "true");
      await field.press("Enter");
      assert.equal(await field.inputValue(), `${join(parent, "alpha-two")}/`);
      // The folder taken, its own subfolders are offered next; Escape closes the list.
      await folders.getByRole("option", { name: "inner/" }).waitFor();
      await field.press("Escape");
      await folders.waitFor({ state: "hidden" });
      assert.equal(await field.getAttribute("aria-expanded"), "false");

      f.model.enqueue({ text: "Hello from alpha-two." });
      const box = page.getByRole("textbox", { name: "Message", exact: true });
      await box.click();
      await page.keyboard.type("Where am I?");
      await page.keyboard.press("Enter");
      await page.getByRole("region", { name: "Conversation" }).getByText("Hello from alpha-two.").waitFor();
      const client = await f.server.client();
      const { threads } = await client.request("thread/list", { limit: 10 });
      assert.deepEqual(
        threads.map((t) => t.cwd),
        [join(parent, "alpha-two")],
        "the thread started in the folder taken",
      );
      assert.deepEqual(opened.consoleErrors, []);
    } finally {
      await opened.close();
    }
  });
});
