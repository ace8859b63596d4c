import { strict as assert } from "node:assert";
import { after, before, describe, test } from "node:test";
import { signal, type Signal } from "@preact/signals";
import type { AppServerClient } from "@knightcode/app-server-client";
import type { AgentMessageItem, ToolCallItem } from "@knightcode/app-server-protocol";
import { held, waitUntil } from "@knightcode/testkit";
import { createTranscriptModel, type TranscriptModel } from "../src/features/transcript/model.js";
import type { OpenThread } from "../src/state/open-threads.js";
import { asConnection, startInProcessServer, type InProcessServer } from "./feature-model-support.js";

/** The transcript model over a real in-process server, with a frame clock the test turns by hand. */
describe("the transcript model", () => {
  let server: InProcessServer;
  before(async () => {
    server = await startInProcessServer();
  });
  after(() => server.close());

  interface Made {
    client: AppServerClient;
    model: TranscriptModel;
    /** Frames asked for and not yet drawn. */
    frames: Map<number, () => void>;
    open: Map<string, Signal<OpenThread | undefined>>;
    errors: string[];
    stop: () => void;
  }

  async function made(): Promise<Made> {
    const client = await server.client();
    const connection = asConnection(client);
    const frames = new Map<number, () => void>();
    let next = 0;
    const open = new Map<string, Signal<OpenThread | undefined>>();
    const errors: string[] = [];
    const model = createTranscriptModel({
      conn: () => connection,
      openThread: (id) => {
        let entry = open.get(id);
        if (!entry) open.set(id, (entry = signal(undefined)));
        return entry;
      },
      reportError: (error, doing) => errors.push(`${doing}: ${String(error)}`),
      frame: {
        request: (run) => {
          frames.set(++next, run);
          return next;
        },
        cancel: (handle) => frames.delete(handle),
      },
    });
    return { client, model, frames, open, errors, stop: model.watch() };
  }

  /** Resumes the thread as the page opens one: the answer becomes the open thread the transcript builds from. */
  async function openIn(m: Made, threadId: string, generation = 1): Promise<void> {
    const resumed = await m.client.request("thread/resume", { threadId });
    const entry = m.open.get(threadId) ?? signal<OpenThread | undefined>(undefined);
    m.open.set(threadId, entry);
    entry.value = { thread: resumed.thread, ui: resumed.ui, queue: resumed.queue, usage: resumed.usage, warnings: resumed.warnings, resumed, generation };
  }

  const drawFrames = (m: Made) => {
    const due = [...m.frames.values()];
    m.frames.clear();
    for (const run of due) run();
  };

  const agentText = (m: Made, threadId: string) =>
    m.model
      .transcript(threadId)
      .state.value.turns.at(-1)
      ?.items.find((i): i is AgentMessageItem => i.type === "agentMessage" && "text" in i)?.text;

  test("deltas wait for the next frame and are drawn in one change; the completed turn holds the whole reply", async () => {
    const m = await made();
    try {
      const { thread } = await m.client.request("thread/start", { cwd: server.project });
      await openIn(m, thread.id);
      const { gate, release } = held();
      // The role chunk, then two pieces of text, then a pause until released.
      server.model.enqueue({ text: ["Hel", "lo ", "world"], pauseAfter: 3, gate });
      await m.client.request("turn/start", { threadId: thread.id, text: "greet" });
      await waitUntil("a frame asked for by the deltas", () => m.frames.size > 0);
      const before = m.model.transcript(thread.id).state.value;
      assert.equal(agentText(m, thread.id) ?? "", "", "nothing drawn before the frame");
      await waitUntil("both deltas before the pause", () => {
        drawFrames(m);
        return agentText(m, thread.id) === "Hello ";
      });
      assert.notEqual(m.model.transcript(thread.id).state.value, before, "the frame changed the state");
      release();
      await waitUntil("the turn completed", () => m.model.transcript(thread.id).state.value.turns.at(-1)?.status === "completed");
      assert.equal(agentText(m, thread.id), "Hello world");
      assert.deepEqual(m.errors, []);
    } finally {
      m.stop();
    }
  });

  test("each turn shows its own usage, not the thread's running total", async () => {
    const m = await made();
    try {
      const { thread } = await m.client.request("thread/start", { cwd: server.project });
      await openIn(m, thread.id);
      server.model.enqueue({ text: "one", usage: { input: 100, output: 10 } }, { text: "two", usage: { input: 150, output: 20 } });
      for (const text of ["first", "second"]) {
        const count = m.model.transcript(thread.id).state.value.turns.length;
        await m.client.request("turn/start", { threadId: thread.id, text });
        await waitUntil(`the ${text} turn's usage`, () => {
          const turns = m.model.transcript(thread.id).state.value.turns;
          return turns.length === count + 1 && turns.at(-1)?.usage !== undefined && turns.at(-1)?.status === "completed";
        });
      }
      const [first, second] = m.model.transcript(thread.id).state.value.turns.map((t) => t.usage);
      assert.deepEqual([first?.input, first?.output], [100, 10]);
      assert.deepEqual([second?.input, second?.output], [150, 20]);
    } finally {
      m.stop();
    }
  });

  test("a reload (a new generation) rebuilds the transcript from the answer; a thread the page has not open gets no transcript", async () => {
    const m = await made();
    try {
      const { thread } = await m.client.request("thread/start", { cwd: server.project });
      const other = (await m.client.request("thread/start", { cwd: server.project })).thread;
      await openIn(m, thread.id);
      m.model.transcript(thread.id).notice("a notice from before the reload");
      server.model.enqueue({ text: "kept" }, { text: "not ours" });
      await m.client.request("turn/start", { threadId: thread.id, text: "keep this" });
      await waitUntil("the turn completed", () => m.model.transcript(thread.id).state.value.turns.at(-1)?.status === "completed");
      await m.client.request("turn/start", { threadId: other.id, text: "elsewhere" });
      await openIn(m, thread.id, 2);
      const rebuilt = m.model.transcript(thread.id).state.value;
      assert.equal(rebuilt.turns.length, 1);
      assert.deepEqual(rebuilt.notices, [], "a reload starts the notices afresh");
      assert.equal(m.open.get(other.id)?.value, undefined, "the other thread was never opened here");
    } finally {
      m.stop();
    }
  });
  test("a tool output too large to come inline is read whole from its reference, multi-byte characters intact", async () => {
    const m = await made();
    try {
      const { thread } = await m.client.request("thread/start", { cwd: server.project, approvalMode: "fullAccess" });
      await openIn(m, thread.id);
      // 50,000 three-byte characters: far over what a field carries inline, and read back in chunks that split them.
      const command = "node -e \"process.stdout.write('\u20ac'.repeat(50000) + 'THE-END')\"";
      server.model.enqueue({ toolCalls: [{ id: "call_big_model", name: "bash", arguments: { command } }] }, { text: "done" });
      await m.client.request("turn/start", { threadId: thread.id, text: "big" });
      const call = await waitUntil("the call's output as a reference", () => {
        drawFrames(m);
        const item = m.model
          .transcript(thread.id)
          .state.value.turns.at(-1)
          ?.items.find((i): i is ToolCallItem => i.id === "call_big_model" && "outputRef" in i && i.outputRef !== undefined);
        return item?.outputRef;
      });
      const text = await m.model.readPayload(call);
      assert.ok(text.endsWith("THE-END"), text.slice(-20));
      // The bash tool keeps the head and tail of a long output around a note; what it kept comes back whole, no character split.
      assert.ok(new TextEncoder().encode(text).length > 16 * 1024, `${text.length} characters: more than a field carries inline`);
      assert.equal(text.includes("\ufffd"), false, "no replacement character: no character was split");
      assert.match(text, /^\u20ac+\n\[\.\.\. [^\n]* omitted here; [^\n]*\]\n\u20ac+THE-END$/);
    } finally {
      m.stop();
    }
  });
});
