import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { waitUntil } from "@knightcode/testkit";
import { DESKTOP, openPage } from "./support/browser.js";
import { DesktopServer, NO_BROWSER, WAIT_MS } from "./support/desktop.js";
import { composerSuite, PNG_1x1, hasFd, sent } from "./composer-support.js";

describe("the composer: images, @ files and / commands", { skip: NO_BROWSER }, () => {
  const f = composerSuite();

  test("a pasted image shows as a thumbnail and reaches the model; a pasted non-image is refused with a message", async () => {
    const { opened, page } = await f.newThread();
    try {
      const box = page.getByLabel("Message", { exact: true });
      await box.focus();
      await page.evaluate(
        ({ png }) => {
          const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
          const files = [new File([bytes], "dot.png", { type: "image/png" }), new File(["plain"], "notes.txt", { type: "text/plain" })];
          const data = new DataTransfer();
          for (const file of files) data.items.add(file);
          document.activeElement!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
        },
        { png: PNG_1x1 },
      );
      await page.getByRole("list", { name: "Images to send" }).getByRole("img", { name: "dot.png" }).waitFor();
      await page.locator(".toast", { hasText: "notes.txt is not a PNG, JPEG, GIF or WebP image" }).waitFor();
      // A dropped image joins it; either thumbnail's button takes its image back.
      await page.evaluate(
        ({ png }) => {
          const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
          const data = new DataTransfer();
          data.items.add(new File([bytes], "dropped.png", { type: "image/png" }));
          const form = document.querySelector(".composer")!;
          form.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
          form.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
        },
        { png: PNG_1x1 },
      );
      await page.getByRole("img", { name: "dropped.png" }).waitFor();
      await page.getByRole("button", { name: "Remove image dropped.png" }).click();
      await page.getByRole("img", { name: "dropped.png" }).waitFor({ state: "detached" });
      f.model.enqueue({ text: "I see a dot" });
      const before = f.model.requests.length;
      await box.fill("what is in this picture?");
      await box.press("Enter");
      const request = await waitUntil(
        "the image to reach the model",
        () => f.model.requests.slice(before).find((r) => sent(r).includes("what is in this picture?")),
        WAIT_MS,
      );
      assert.ok(sent(request).includes(PNG_1x1.slice(0, 40)), "the model request carries the image's bytes");
      await page.getByRole("list", { name: "Images to send" }).waitFor({ state: "detached" });
    } finally {
      await opened.close();
    }
  });

  test("@ lists files from file/search as you type and inserts the one picked", { skip: hasFd() ? false : "neither fd nor fdfind is installed" }, async () => {
    const { opened, page } = await f.newThread();
    try {
      const box = page.getByLabel("Message", { exact: true });
      await box.pressSequentially("look at @needle");
      const option = page.getByRole("listbox", { name: "Files" }).getByRole("option", { name: "src/needle-file.ts" });
      await option.waitFor();
      await box.press("Enter");
      assert.equal(await box.inputValue(), "look at @src/needle-file.ts ");
      await page.getByRole("listbox", { name: "Files" }).waitFor({ state: "detached" });
    } finally {
      await opened.close();
    }
  });

  test("without fd, @ says file search is unavailable once and leaves the typed text as it is", async () => {
    const bin = mkdtempSync(join(tmpdir(), "kc-nofd-"));
    for (const tool of ["git", "sh"]) {
      try {
        symlinkSync(execFileSync("which", [tool], { encoding: "utf8" }).trim(), join(bin, tool));
      } catch {
        // not installed here: the server does without it
      }
    }
    const bare = await DesktopServer.start({ model: f.model, env: { PATH: bin } });
    try {
      const client = await bare.client();
      const { thread } = await client.request("thread/start", { cwd: bare.project({ "a.txt": "a\n" }) });
      const opened = await openPage(f.browser, bare, DESKTOP, bare.threadUrl(thread.id));
      try {
        const box = opened.page.getByLabel("Message", { exact: true });
        await box.pressSequentially("see @a.t");
        await opened.page.locator(".toast", { hasText: "File search is unavailable" }).waitFor();
        await box.pressSequentially("xt");
        assert.equal(await box.inputValue(), "see @a.txt");
        assert.equal(await opened.page.locator(".toast", { hasText: "File search is unavailable" }).count(), 1, "said once");
        assert.equal(await opened.page.getByRole("listbox").count(), 0);
      } finally {
        await opened.close();
      }
    } finally {
      await bare.dispose();
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test("/ at the start lists command/list's commands with their descriptions and inserts the one picked", async () => {
    const { opened, page } = await f.newThread();
    try {
      const box = page.getByLabel("Message", { exact: true });
      await box.pressSequentially("/review");
      const list = page.getByRole("listbox", { name: "Commands" });
      await list.getByRole("option", { name: /\/review-changes.*Review the working tree's changes/ }).waitFor();
      await box.press("Tab");
      assert.equal(await box.inputValue(), "/review-changes ");
      await list.waitFor({ state: "detached" });
    } finally {
      await opened.close();
    }
  });
});
