import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { AppServerClient, WebSocketTransport } from "@knightcode/app-server-client";
import { DESKTOP, describeViolations, openPage, screenAndAudit, type AxeViolation, type OpenedPage, type Viewport } from "./support/browser.js";
import type { DesktopServer } from "./support/desktop.js";
import { desktopSuite } from "./support/suite.js";

const skill = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\nDo ${name}.\n`;
const TAB_NAMES: Record<string, string> = {
  general: "General",
  models: "Models",
  accounts: "Accounts",
  mcp: "MCP",
  tools: "Tools",
  resources: "Resources",
  trust: "Trust",
};
export const TABS = Object.keys(TAB_NAMES);

/** What the settings tests share: a server with the scripted model, global resources, an MCP file with a bad entry, an untrusted project. */
export interface SettingsFixture {
  browser: Browser;
  server: DesktopServer;
  client: AppServerClient<WebSocketTransport>;
  /** A project folder whose .knightcode holds settings and a skill; undecided at first. */
  project: string;
  /** The page opened on a settings tab. */
  open(tab: string, viewport?: Viewport): Promise<OpenedPage>;
}

/** Registers before/after hooks for one test file (a desktop suite); the fields are set once `before` ran. */
export function settingsFixture(): SettingsFixture {
  const fixture = {} as SettingsFixture;
  desktopSuite({
    setup: async (suite) => {
      const server = suite.server;
      const agent = server.agentDir;
      mkdirSync(join(agent, "skills", "review"), { recursive: true });
      writeFileSync(join(agent, "skills", "review", "SKILL.md"), skill("review"));
      // One working entry and one the server skips with a warning (its name breaks the naming rule).
      writeFileSync(
        join(agent, "mcp.json"),
        JSON.stringify({ mcpServers: { local: { command: "node", args: ["mcp-server.js"] }, "bad name!": { command: "x" } } }),
      );
      fixture.server = server;
      fixture.project = server.project({
        ".knightcode/settings.json": JSON.stringify({ compaction: { keepRecentTokens: 1234 } }),
        ".knightcode/skills/proj-skill/SKILL.md": skill("proj-skill"),
      });
      fixture.client = await server.client();
      fixture.browser = suite.browser;
      fixture.open = async (tab, viewport = DESKTOP) => {
        const opened = await openPage(fixture.browser, server, viewport, `${server.origin}/?settings=${tab}#token=${server.token}`);
        await opened.page.getByRole("tab", { name: TAB_NAMES[tab]!, selected: true }).waitFor();
        return opened;
      };
    },
  });
  return fixture;
}

/** Points the screen at a typed project folder. */
export async function useFolder(page: Page, folder: string): Promise<void> {
  await page.getByLabel("Project", { exact: true }).selectOption("folder");
  await page.getByLabel("Project folder (absolute path)").fill(folder);
  await page.getByRole("button", { name: "Use folder" }).click();
  await page.getByText(`Reading ${folder} over the global settings.`).waitFor();
}

/** One attribute of every element a selector finds, in document order. */
export function attributes(page: Page, selector: string, name: string): Promise<Array<string | null>> {
  return page.locator(selector).evaluateAll((els, n) => els.map((el) => el.getAttribute(n)), name);
}

/** Leaf keys of a settings object, as config/read's origins name them. */
export function leafKeys(value: unknown, prefix = ""): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return prefix ? [prefix] : [];
  return Object.entries(value).flatMap(([key, inner]) => leafKeys(inner, prefix ? `${prefix}.${key}` : key));
}

/**
 * Opens the screen on a project, then shows every tab in turn: each one is
 * screenshotted and audited (axe-core, WCAG 2.1 A/AA) once its answers arrived.
 */
export async function auditEveryTab(
  f: SettingsFixture,
  viewport: Viewport,
  name: string,
): Promise<{ violations: Record<string, AxeViolation[]>; consoleErrors: string[] }> {
  const opened = await f.open("general", viewport);
  try {
    const page = opened.page;
    await useFolder(page, f.project);
    const violations: Record<string, AxeViolation[]> = {};
    for (const tab of TABS) {
      await page.getByRole("tab", { name: TAB_NAMES[tab]! }).click();
      await page.locator(`.settings[data-tab="${tab}"]`).waitFor();
      await page.locator(".settings-panel .settings-section").first().waitFor();
      await page.locator(".settings-panel [aria-busy=true]").first().waitFor({ state: "detached" });
      const found = await screenAndAudit(page, `settings-${tab}-${name}`);
      if (found.length > 0) violations[tab] = found;
    }
    return { violations, consoleErrors: opened.consoleErrors };
  } finally {
    await opened.close();
  }
}

/** A readable message for an assertion on auditEveryTab's violations, tab by tab. */
export function describeTabViolations(violations: Record<string, AxeViolation[]>): string {
  return Object.entries(violations)
    .map(([tab, v]) => `${tab}:\n${describeViolations(v)}`)
    .join("\n");
}
