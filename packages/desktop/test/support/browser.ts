import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { axeScript, chromiumPath, SCREENSHOTS, WAIT_MS, type DesktopServer } from "./desktop.js";

/** Headless Debian Chromium, with the switches that keep it off the network. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error("Chromium is not installed");
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-default-apps",
      "--disable-extensions",
    ],
  });
}

export interface Viewport {
  width: number;
  height: number;
}
export const DESKTOP: Viewport = { width: 1280, height: 800 };
export const NARROW: Viewport = { width: 420, height: 860 };
/** What 200% zoom of a 1280-pixel window leaves: 640 CSS pixels. */
export const ZOOMED: Viewport = { width: 640, height: 400 };

/** A page on the server plus what it did that a test checks: console errors, requests anywhere else. */
export interface OpenedPage {
  page: Page;
  context: BrowserContext;
  consoleErrors: string[];
  foreignRequests: string[];
  close(): Promise<void>;
}

/** Opens the address `knightcode desktop` printed and waits until the page is connected and drawn. */
export async function openPage(browser: Browser, server: DesktopServer, viewport: Viewport = DESKTOP, url = server.url): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport, colorScheme: "light", reducedMotion: "reduce" });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  const consoleErrors: string[] = [];
  const foreignRequests: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(server.origin) && !url.startsWith("data:") && !url.startsWith("blob:")) foreignRequests.push(url);
  });
  await page.goto(url);
  await page.waitForSelector("html[data-ready='true']");
  return { page, context, consoleErrors, foreignRequests, close: () => context.close() };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown; failureSummary?: string }>;
}

/**
 * Saves a screenshot under test-output/screenshots and runs axe-core's WCAG
 * 2.1 A and AA rules on the page as it is; returns the violations.
 */
export async function screenAndAudit(page: Page, name: string): Promise<AxeViolation[]> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const size = page.viewportSize();
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size?.width ?? 0}.png`) });
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(axeScript());
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
}

/** A readable message for an assertion on axe's violations. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.map((n) => JSON.stringify(n.target)).join("\n  ")}`).join("\n");
}
