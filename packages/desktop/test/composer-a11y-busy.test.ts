import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { DESKTOP, ZOOMED, describeViolations, screenAndAudit } from "./support/browser.js";
import { NO_BROWSER } from "./support/desktop.js";
import { composerSuite, PNG_1x1, held } from "./composer-support.js";

/**
 * The composer's busiest state: a turn running, a steer and a follow-up
 * waiting, an image attached. Audited dark at desktop width and light at
 * 640 px (a 1280-pixel window at 200% zoom).
 */
describe("the composer: accessibility while a turn runs", { skip: NO_BROWSER }, () => {
  const f = composerSuite();

  for (const [viewport, scheme] of [
    [DESKTOP, "dark"],
    [ZOOMED, "light"],
  ] as const) {
    test(`passes axe ${scheme} at ${viewport.width} px with the queue, the running-turn buttons and an image`, async () => {
      const { threadId, opened, page } = await f.newThread(viewport);
      const hold = held();
      try {
        await page.emulateMedia({ colorScheme: scheme });
        f.model.enqueue({ text: ["working"], pauseAfter: 1, gate: hold.gate }, { text: "done" });
        const box = page.getByLabel("Message", { exact: true });
        await box.fill("start");
        await box.press("Enter");
        await page.getByRole("button", { name: "Interrupt" }).waitFor();
        await box.fill("a follow-up");
        await box.press("Enter");
        await page.locator("[data-queue-kind='followUp']").waitFor();
        await box.focus();
        await page.evaluate(
          ({ png }) => {
            const data = new DataTransfer();
            data.items.add(new File([Uint8Array.from(atob(png), (c) => c.charCodeAt(0))], "dot.png", { type: "image/png" }));
            document.activeElement!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
          },
          { png: PNG_1x1 },
        );
        await page.getByRole("img", { name: "dot.png" }).waitFor();
        await box.fill("a draft while it works");
        const violations = await screenAndAudit(page, `composer-busy-${scheme}`);
        assert.equal(violations.length, 0, describeViolations(violations));
        hold.release();
        await f.turnsEnded(threadId, 2);
      } finally {
        hold.release();
        await opened.close();
      }
    });
  }
});
