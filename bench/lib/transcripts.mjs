// Synthetic transcripts for the history benches: valid session files of a
// few minutes' work each, written straight to a sessions folder.
import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const { serializeEntry, serializeHeader } = await import("@knightcode/store/session/format");
const { sessionFileName } = await import("@knightcode/store/session/paths");

export { serializeEntry };

export function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = "the a function returns value file test error build import export const let await async module path line change fix".split(" ");
export const PROJECTS = Array.from({ length: 12 }, (_, i) => `/home/dev/projects/app-${i}`);
const usage = {
  input: 1200,
  output: 300,
  cacheRead: 800,
  cacheWrite: 0,
  totalTokens: 2300,
  cost: { input: 0.001, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.003 },
};

/** A transcript of 2 to 6 turns with tool calls, as a thread of a few minutes' work looks. */
export function transcript(random, id, createdAt, forkedFromId) {
  const text = (min, max) => {
    const parts = [];
    for (let length = 0, target = min + Math.floor(random() * (max - min)); length < target; ) {
      const part = `${WORDS[Math.floor(random() * WORDS.length)]}${random() < 0.08 ? ".\n" : " "}`;
      parts.push(part);
      length += part.length;
    }
    return parts.join("");
  };
  const cwd = PROJECTS[Math.floor(random() * PROJECTS.length)];
  const lines = [serializeHeader({ type: "session", version: 1, id, cwd, createdAt, ...(forkedFromId ? { forkedFromId } : {}) })];
  let parentId = null;
  let n = 0;
  const add = (entry) => {
    const entryId = `${id.slice(0, 4)}${(n++).toString(16).padStart(8, "0")}`;
    lines.push(serializeEntry({ ...entry, id: entryId, parentId, timestamp: Date.parse(createdAt) + n * 1000 }));
    parentId = entryId;
    return entryId;
  };
  add({ type: "model_change", provider: "local", modelId: "bench-model" });
  add({ type: "approval_mode", mode: "ask" });
  const assistant = (content, stopReason) => ({
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "local",
    model: "bench-model",
    usage,
    stopReason,
    timestamp: 1,
  });
  const turns = 2 + Math.floor(random() * 5);
  for (let turn = 0; turn < turns; turn++) {
    const turnId = add({ type: "turn_start" });
    add({ type: "message", message: { role: "user", content: text(20, 600), timestamp: 1 } });
    for (let call = 0, calls = Math.floor(random() * 4); call < calls; call++) {
      const callId = `call_${turn}_${call}`;
      add({
        type: "message",
        message: assistant(
          [
            { type: "text", text: text(0, 200) },
            { type: "toolCall", id: callId, name: "bash", arguments: { command: text(10, 80) } },
          ],
          "toolUse",
        ),
      });
      add({
        type: "message",
        message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text: text(50, 2500) }], isError: false, timestamp: 1 },
      });
    }
    add({ type: "message", message: assistant([{ type: "text", text: text(50, 1200) }], "stop") });
    add({ type: "turn_end", turnId, status: "completed" });
    if (turn === 0 && random() < 0.2) add({ type: "thread_name", name: text(10, 40).replace(/\n/g, " ").trim() || "named" });
  }
  return lines.join("\n") + "\n";
}

/** `count` transcripts with mtimes spread over 30 days; 5% are forks of an earlier one. */
export function seed(dir, count) {
  const random = mulberry32(count);
  const ids = [];
  let bytes = 0;
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const id = crypto.randomUUID();
    const createdAt = new Date(now - 30 * 86_400_000 + Math.floor(random() * 29 * 86_400_000)).toISOString();
    const parent = ids.length > 0 && random() < 0.05 ? ids[Math.floor(random() * ids.length)] : undefined;
    const path = join(dir, sessionFileName(createdAt, id));
    const text = transcript(random, id, createdAt, parent);
    writeFileSync(path, text, { mode: 0o600 });
    const mtime = new Date(Date.parse(createdAt) + Math.floor(random() * 86_400_000));
    utimesSync(path, mtime, mtime);
    bytes += text.length;
    ids.push(id);
  }
  return { bytes };
}

/**
 * One long thread: `turns` turns of a user message, a tool call and its
 * output, and an answer. Returns the file's path and size.
 */
export function longTranscript(dir, turns, cwd = PROJECTS[0]) {
  const random = mulberry32(turns);
  const id = crypto.randomUUID();
  const createdAt = new Date(Date.now() - 86_400_000).toISOString();
  const path = join(dir, sessionFileName(createdAt, id));
  const lines = [serializeHeader({ type: "session", version: 1, id, cwd, createdAt })];
  let parentId = null;
  let n = 0;
  const add = (entry) => {
    const entryId = (n++).toString(16).padStart(12, "0");
    lines.push(serializeEntry({ ...entry, id: entryId, parentId, timestamp: Date.parse(createdAt) + n }));
    parentId = entryId;
    return entryId;
  };
  const words = (count) => Array.from({ length: count }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
  const assistant = (content, stopReason) => ({
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "local",
    model: "bench-model",
    usage,
    stopReason,
    timestamp: 1,
  });
  add({ type: "model_change", provider: "local", modelId: "bench-model" });
  // Each turn_end carries the checkpoint KnightCode writes: the branch's state and usage so far.
  const totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  const state = { model: { provider: "local", id: "bench-model" }, firstUserText: "", usage: totals };
  for (let turn = 0; turn < turns; turn++) {
    const turnId = add({ type: "turn_start" });
    const question = `${turn}: ${words(20)}`;
    if (turn === 0) state.firstUserText = question;
    add({ type: "message", message: { role: "user", content: question, timestamp: 1 } });
    const callId = `call_${turn}`;
    add({ type: "message", message: assistant([{ type: "toolCall", id: callId, name: "bash", arguments: { command: words(6) } }], "toolUse") });
    add({
      type: "message",
      message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text: words(150) }], isError: false, timestamp: 1 },
    });
    add({ type: "message", message: assistant([{ type: "text", text: words(60) }], "stop") });
    for (const key of ["input", "output", "cacheRead", "cacheWrite"]) totals[key] += 2 * usage[key];
    totals.cost += 2 * usage.cost.total;
    add({ type: "turn_end", turnId, status: "completed", state: { ...state, usage: { ...totals, contextTokens: 2300 } } });
  }
  const text = lines.join("\n") + "\n";
  writeFileSync(path, text, { mode: 0o600 });
  return { path, id, bytes: Buffer.byteLength(text) };
}
