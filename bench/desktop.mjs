#!/usr/bin/env node
// The desktop page in Debian's Chromium, on `knightcode desktop` over 1,000
// saved threads. Prints one JSON document.
//
//   sidebar       navigation start -> the sidebar drawn with its threads
//                 (nav.sidebar[data-loaded='true'] [data-thread-id]), median
//                 of --reps fresh tabs; html[data-ready] (connected and first
//                 render) beside it
//   firstScreen   navigation start -> the first screen's message box has the
//                 focus (focusin), and the Enter that sends a first message
//                 -> that message shown as sending ([data-sending]), both
//                 timed in the page, median of --reps fresh tabs
//   stream        a 2,000-delta reply streaming into the open thread: long
//                 tasks (PerformanceObserver 'longtask', each over 50 ms),
//                 dropped frames (requestAnimationFrame gaps over 1.5 x 16.7
//                 ms) counted in the page, and the stream's duration, per rep;
//                 beside them the same counts on the idle page (--idle-ms), the
//                 machine's noise floor
//
//   node bench/desktop.mjs [--reps 7] [--stream-reps 3] [--threads 1000] [--deltas 2000] [--chunk-delay-ms 0] [--idle-ms 3000] [--out result.json]
//
// The threads are session files written straight to a sessions folder (see
// lib/transcripts.mjs), served with --session-dir. The server and the page
// come from this checkout's build (npm run build first).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { flag } from "./lib/measure.mjs";

const support = new URL("../packages/desktop/dist/test/support/", import.meta.url);
const { DesktopServer } = await import(new URL("desktop.js", support));
const { launchBrowser } = await import(new URL("browser.js", support));
const { ScriptedModelServer } = await import(new URL("../packages/testkit/dist/src/index.js", import.meta.url));
const { seed } = await import("./lib/transcripts.mjs");

const reps = Number(flag("--reps", "7"));
const streamReps = Number(flag("--stream-reps", "3"));
const threads = Number(flag("--threads", "1000"));
const deltas = Number(flag("--deltas", "2000"));
const chunkDelayMs = Number(flag("--chunk-delay-ms", "0"));
const idleMs = Number(flag("--idle-ms", "3000"));
const VIEWPORT = { width: 1280, height: 800 };
const FRAME_MS = 1000 / 60;

const median = (values) => {
  const sorted = values.filter((v) => typeof v === "number" && Number.isFinite(v)).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const mid = sorted.length >> 1;
  return +(sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2).toFixed(2);
};

/**
 * Runs in the page before its own script: notes (performance.now(), from
 * navigation start) when the document first matches each selector, checked
 * on every DOM change, so no polling from outside skews the figure.
 */
function markWhenPresent(selectors) {
  const marks = {};
  globalThis.__benchMarks = marks;
  const check = () => {
    for (const [name, selector] of Object.entries(selectors)) {
      if (marks[name] === undefined && document.querySelector(selector)) marks[name] = performance.now();
    }
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true });
}

const SIDEBAR = "nav.sidebar[data-loaded='true'] [data-thread-id]";

async function sidebarLoad(browser, server) {
  const sidebar = [];
  const ready = [];
  let sidebarSeen = true;
  for (let i = 0; i < reps; i++) {
    const context = await browser.newContext({ viewport: VIEWPORT });
    try {
      await context.addInitScript(markWhenPresent, { sidebar: SIDEBAR, ready: "html[data-ready='true']" });
      const page = await context.newPage();
      await page.goto(server.url);
      await page.waitForSelector("html[data-ready='true']", { timeout: 30_000 });
      // Until the sidebar is built, the page never draws its rows: give it a while, then record its absence.
      const found = await page.waitForSelector(SIDEBAR, { timeout: 10_000, state: "attached" }).then(
        () => true,
        () => false,
      );
      if (!found) sidebarSeen = false;
      const marks = await page.evaluate(() => globalThis.__benchMarks);
      if (found) sidebar.push(marks.sidebar);
      ready.push(marks.ready);
    } finally {
      await context.close();
    }
  }
  return {
    reps,
    sidebarMedianMs: sidebarSeen ? median(sidebar) : null,
    sidebarMs: sidebar.map((v) => +v.toFixed(1)),
    readyMedianMs: median(ready),
    readyMs: ready.map((v) => +v.toFixed(1)),
    ...(sidebarSeen
      ? {}
      : { note: "the sidebar never drew a thread row (not built on this branch yet): readyMedianMs is navigation start to html[data-ready]" }),
  };
}

/**
 * Runs in the page before its own script: when the first screen's message
 * box first has the focus, when Enter is pressed in it, and when the user's
 * own message is first drawn as sending, all from navigation start.
 */
function markFirstScreen() {
  const marks = {};
  globalThis.__benchFirst = marks;
  const isBox = (el) => el instanceof HTMLTextAreaElement && el.getAttribute("aria-label") === "Message" && !!el.closest(".start-screen");
  document.addEventListener(
    "focusin",
    (e) => {
      if (marks.focused === undefined && isBox(e.target)) marks.focused = performance.now();
    },
    true,
  );
  document.addEventListener(
    "keydown",
    (e) => {
      if (marks.enter === undefined && e.key === "Enter" && isBox(e.target)) marks.enter = performance.now();
    },
    true,
  );
  new MutationObserver(() => {
    if (marks.enter !== undefined && marks.shown === undefined && document.querySelector("[data-sending]")) marks.shown = performance.now();
  }).observe(document, { subtree: true, childList: true, attributes: true });
}

async function firstScreen(browser, server, model) {
  const focus = [];
  const own = [];
  for (let i = 0; i < reps; i++) {
    const context = await browser.newContext({ viewport: VIEWPORT });
    try {
      await context.addInitScript(markFirstScreen);
      const page = await context.newPage();
      await page.goto(server.url);
      const box = page.locator(".start-screen textarea[aria-label='Message']");
      await page.waitForFunction(() => globalThis.__benchFirst.focused !== undefined, null, { timeout: 30_000 });
      await page.waitForSelector("html[data-ready='true']", { timeout: 30_000 });
      model.enqueue({ text: "ok" });
      await box.fill(`first message ${i}`);
      await box.press("Enter");
      await page.waitForFunction(() => globalThis.__benchFirst.shown !== undefined, null, { timeout: 30_000 });
      const marks = await page.evaluate(() => globalThis.__benchFirst);
      focus.push(marks.focused);
      own.push(marks.shown - marks.enter);
      // The turn it started ends before the tab goes, so no run is left behind.
      await page.waitForSelector("[data-turn-status='completed']", { timeout: 30_000 });
    } finally {
      await context.close();
    }
  }
  return {
    reps,
    loadToFocusedComposerMedianMs: median(focus),
    loadToFocusedComposerMs: focus.map((v) => +v.toFixed(1)),
    enterToOwnMessageMedianMs: median(own),
    enterToOwnMessageMs: own.map((v) => +v.toFixed(1)),
  };
}

/** Runs in the page: long tasks and frame gaps until __benchStop(). */
function watchFrames() {
  const state = { longTasks: [], gaps: [], frames: 0, firstText: undefined, done: undefined };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) state.longTasks.push(entry.duration);
  }).observe({ type: "longtask" });
  let last = performance.now();
  let running = true;
  const frame = (now) => {
    if (!running) return;
    state.gaps.push(now - last);
    last = now;
    state.frames++;
    const turn = document.querySelector("[data-turn-id]:last-of-type");
    if (state.firstText === undefined && turn?.querySelector("[data-item-type='agentMessage']")) state.firstText = now;
    if (state.firstText !== undefined && state.done === undefined && turn?.getAttribute("data-turn-status") === "completed") state.done = now;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  globalThis.__benchStop = () => {
    running = false;
    return state;
  };
}

async function streaming(browser, server, model) {
  const client = await server.client();
  const runs = [];
  for (let i = 0; i < streamReps; i++) {
    const { thread } = await client.request("thread/start", { cwd: server.home, model: { provider: "scripted", id: "scripted-model" } });
    const context = await browser.newContext({ viewport: VIEWPORT });
    try {
      const page = await context.newPage();
      await page.goto(server.threadUrl(thread.id));
      await page.waitForSelector(`section.transcript[data-thread="${thread.id}"]`, { timeout: 30_000 });
      // The noise floor: the same page with nothing streaming, for as long as a stream takes here, so a
      // loaded machine's long tasks are not taken for the page's.
      await page.evaluate(watchFrames);
      await page.evaluate((ms) => new Promise((resolve) => setTimeout(resolve, ms)), idleMs);
      const idle = await page.evaluate(() => globalThis.__benchStop());
      await page.evaluate(watchFrames);
      const chunks = Array.from({ length: deltas }, (_, n) => (n % 40 === 39 ? `word${n}.\n\n` : n % 97 === 0 ? `\`code${n}\` ` : `word${n} `));
      model.enqueue({ text: chunks, chunkDelayMs });
      const started = performance.now();
      const run = await client.runTurn(thread.id, "stream a long answer");
      const turn = await run.completed;
      const serverMs = performance.now() - started;
      await page.waitForSelector(`[data-turn-id="${turn.id}"][data-turn-status="completed"]`, { timeout: 60_000 });
      // One more frame, so the last redraw is counted.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const state = await page.evaluate(() => globalThis.__benchStop());
      const shown = await page.locator(`[data-turn-id="${turn.id}"] [data-item-type='agentMessage']`).innerText();
      runs.push({
        deltas,
        textComplete: shown.includes(`word${deltas - 1}`),
        turnMs: +serverMs.toFixed(1),
        pageStreamMs: state.done !== undefined && state.firstText !== undefined ? +(state.done - state.firstText).toFixed(1) : null,
        longTasksOver50Ms: state.longTasks.filter((d) => d > 50).length,
        longestTaskMs: state.longTasks.length ? +Math.max(...state.longTasks).toFixed(1) : 0,
        frames: state.frames,
        droppedFrames: state.gaps.filter((g) => g > 1.5 * FRAME_MS).length,
        longestFrameGapMs: +Math.max(0, ...state.gaps).toFixed(1),
        idleBaseline: {
          ms: idleMs,
          longTasksOver50Ms: idle.longTasks.filter((d) => d > 50).length,
          frames: idle.frames,
          droppedFrames: idle.gaps.filter((g) => g > 1.5 * FRAME_MS).length,
        },
      });
    } finally {
      await context.close();
    }
  }
  return {
    reps: runs,
    medianLongTasksOver50Ms: median(runs.map((r) => r.longTasksOver50Ms)),
    medianDroppedFrames: median(runs.map((r) => r.droppedFrames)),
    medianPageStreamMs: median(runs.map((r) => r.pageStreamMs)),
    medianIdleLongTasksOver50Ms: median(runs.map((r) => r.idleBaseline.longTasksOver50Ms)),
  };
}

const sessions = mkdtempSync(join(tmpdir(), "kc-bench-desktop-"));
const model = await ScriptedModelServer.start();
let server;
let browser;
try {
  const seeded = seed(sessions, threads);
  server = await DesktopServer.start({ model, args: ["--session-dir", sessions] });
  browser = await launchBrowser();
  const result = {
    bench: "desktop",
    node: process.version,
    cpu: `${cpus().length} x ${cpus()[0]?.model ?? "?"}`,
    loadAverageAtStart: loadavg().map((l) => +l.toFixed(2)),
    threads,
    transcriptMiB: +(seeded.bytes / 1024 / 1024).toFixed(1),
    goals: {
      "sidebar.sidebarMedianMs": "< 500 ms",
      "firstScreen.loadToFocusedComposerMedianMs": "< 300 ms",
      "firstScreen.enterToOwnMessageMedianMs": "< 50 ms",
      "stream.longTasksOver50Ms": "0 (no long task over 50 ms)",
    },
    sidebar: await sidebarLoad(browser, server),
    firstScreen: await firstScreen(browser, server, model),
    stream: await streaming(browser, server, model),
  };
  const text = JSON.stringify(result, null, 2);
  const out = flag("--out");
  if (out) writeFileSync(out, text + "\n");
  console.log(text);
} finally {
  await browser?.close();
  await server?.dispose();
  await model.close();
  rmSync(sessions, { recursive: true, force: true });
}
