import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { ServerRequestParams, ServerRequestResult } from "@knightcode/app-server-protocol";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestServer, startServer, waitUntil, type TestClient } from "../support/harness.js";

/**
 * Door 12 of issue 27, played as the attack: in plan mode the model sends
 * one message that submits its plan and, in the same breath, asks for the
 * command and the write the plan was meant to hold back. Whatever the user
 * answers, those calls were chosen before the model heard the verdict, so
 * none runs and the user is not asked about them; the model's next message
 * may make them again.
 */

type DialogParams = ServerRequestParams<"ui/dialog">;
type DialogAnswer = ServerRequestResult<"ui/dialog">;
type ApprovalParams = ServerRequestParams<"item/toolCall/requestApproval">;
type ToolCall = { id: string; name: string; arguments: unknown };
type Verdict = "Approve" | "Revise" | "dismiss";

const WAIT_FOR_VERDICT = /came after submit_plan in the same message.*call it again/s;

let model: ScriptedModelServer;
let server: TestServer;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model, env: { KNIGHTCODE_THREAD_IDLE_MS: "300" } });
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
});

let callSeq = 0;
const call = (name: string, args: unknown): ToolCall => ({ id: `plan_door_${++callSeq}`, name, arguments: args });

/** Holds each plan review until the test answers it; approves every approval request, recording it. */
function listen(client: TestClient) {
  const reviews: { params: DialogParams; answer: (a: DialogAnswer) => void }[] = [];
  const approvals: ApprovalParams[] = [];
  const offDialog = client.client.onRequest("ui/dialog", (params) => new Promise<DialogAnswer>((answer) => reviews.push({ params, answer })));
  const offApproval = client.client.onRequest("item/toolCall/requestApproval", (params) => {
    approvals.push(params);
    return params.decisions.includes("acceptForSession") ? { decision: "acceptForSession" } : { decision: "accept" };
  });
  return {
    reviews,
    approvals,
    off: () => {
      offDialog();
      offApproval();
    },
  };
}

async function planThread(client: TestClient, cwd: string, approvalMode: "ask" | "fullAccess") {
  const { thread } = await client.request("thread/start", { cwd, approvalMode });
  return thread;
}

async function turnPlanModeOn(client: TestClient, threadId: string): Promise<void> {
  const mark = client.notifications.length;
  await client.request("thread/settings/update", { threadId, planMode: true });
  await client.waitForNotification("thread/planMode/updated", (p) => p.threadId === threadId && p.planMode, { since: mark });
}

/** The toolCall items a turn completed, by call id. */
function completedCalls(client: TestClient, turnId: string): Map<string, { status?: string; output?: string }> {
  const items = new Map<string, { status?: string; output?: string }>();
  for (const params of client.notificationsOf("item/completed")) {
    const item = params.item as { id: string; type: string; status?: string; output?: string };
    if (params.turnId === turnId && item.type === "toolCall") items.set(item.id, item);
  }
  return items;
}

/** The text of the tool result the model was sent for `callId`. */
function toolResult(callId: string): string | undefined {
  for (const request of model.requests) {
    for (const message of (request.body.messages ?? []) as { role: string; tool_call_id?: string; content: unknown }[]) {
      if (message.role === "tool" && message.tool_call_id === callId) {
        return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
      }
    }
  }
  return undefined;
}

/** Answers the open review with `verdict`: Revise then writes feedback in the editor that follows; dismiss answers `{}`. */
async function decide(listener: ReturnType<typeof listen>, verdict: Verdict): Promise<void> {
  const review = listener.reviews[0]!;
  assert.deepEqual((review.params as { options?: string[] }).options, ["Approve", "Revise"]);
  if (verdict === "dismiss") return review.answer({});
  review.answer({ value: verdict });
  if (verdict === "Revise") {
    const editor = await waitUntil("the feedback editor", () => listener.reviews[1]);
    editor.answer({ value: "Smaller steps." });
  }
}

describe("door 12: calls batched after submit_plan wait for the verdict", () => {
  test("fullAccess, plan approved: the batched command and write are refused, calls before the plan are judged as before, and the next message runs them", async () => {
    const cwd = server.project({ "a.txt": "alpha\n" });
    const thread = await planThread(server.main, cwd, "fullAccess");
    await turnPlanModeOn(server.main, thread.id);
    const listener = listen(server.main);
    try {
      const readBefore = call("read", { path: "a.txt" });
      const writeBefore = call("write", { path: "before.txt", content: "too soon" });
      const plan = call("submit_plan", { plan: "1. Create the marker.\n2. Write late.txt." });
      const bash = call("bash", { command: "touch batched-marker" });
      const write = call("write", { path: "batched.txt", content: "unheard" });
      const readAfter = call("read", { path: "a.txt" });
      const nextBash = call("bash", { command: "touch next-marker" });
      const nextWrite = call("write", { path: "next.txt", content: "heard" });
      model.enqueue({ toolCalls: [readBefore, writeBefore, plan, bash, write, readAfter] }, { toolCalls: [nextBash, nextWrite] }, { text: "done" });
      const mark = server.main.notifications.length;
      await server.main.request("turn/start", { threadId: thread.id, text: "plan, then do it" });
      const turnId = (await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark })).turn.id;

      await waitUntil("the plan review", () => listener.reviews[0]);
      assert.equal(existsSync(join(cwd, "batched-marker")), false, "nothing after the plan runs while its review is open");
      assert.equal(existsSync(join(cwd, "batched.txt")), false);
      await decide(listener, "Approve");
      const done = await server.main.waitForNotification("thread/turn/completed", (p) => p.turn.id === turnId, { since: mark, timeoutMs: 20_000 });
      assert.equal(done.turn.status, "completed");

      assert.equal(existsSync(join(cwd, "batched-marker")), false, "the command batched after the plan never ran");
      assert.equal(existsSync(join(cwd, "batched.txt")), false, "nor did the write");
      for (const refused of [bash, write, readAfter]) {
        assert.match(toolResult(refused.id) ?? "", WAIT_FOR_VERDICT, `${refused.name} tells the model to wait for the verdict`);
        assert.equal(completedCalls(server.main, turnId).get(refused.id)?.status, "failed");
      }
      assert.match(toolResult(readBefore.id) ?? "", /alpha/, "a read before the plan runs");
      assert.match(toolResult(writeBefore.id) ?? "", /Plan mode is on/, "a write before the plan meets plan mode");
      assert.match(toolResult(plan.id) ?? "", /approved the plan/);
      assert.equal(existsSync(join(cwd, "next-marker")), true, "the model's next message runs its command");
      assert.equal(existsSync(join(cwd, "next.txt")), true, "and its write");
      assert.deepEqual(listener.approvals, [], "fullAccess asks nothing");
    } finally {
      listener.off();
    }
  });

  const PAST: Record<Verdict, string> = { Approve: "approved", Revise: "revised", dismiss: "dismissed" };
  for (const verdict of ["Approve", "Revise", "dismiss"] as const) {
    test(`ask with a write grant, plan ${PAST[verdict]}: the batched calls are refused without asking`, async () => {
      const cwd = server.project({ "a.txt": "alpha\n" });
      const thread = await planThread(server.main, cwd, "ask");
      const listener = listen(server.main);
      try {
        // A session grant for write, earned before plan mode: no grant stretches to a call the model made before the verdict.
        const grant = call("write", { path: "granted.txt", content: "ok" });
        model.enqueue({ toolCalls: [grant] }, { text: "written" });
        let mark = server.main.notifications.length;
        await server.main.request("turn/start", { threadId: thread.id, text: "write it" });
        await server.main.waitForNotification("thread/turn/completed", (p) => p.threadId === thread.id, { since: mark, timeoutMs: 20_000 });
        assert.equal(listener.approvals.length, 1, "the write asked and earned its grant");
        assert.equal(existsSync(join(cwd, "granted.txt")), true);

        await turnPlanModeOn(server.main, thread.id);
        const plan = call("submit_plan", { plan: "1. Create the marker." });
        const bash = call("bash", { command: "touch batched-marker" });
        const write = call("write", { path: "batched.txt", content: "unheard" });
        model.enqueue({ toolCalls: [plan, bash, write] }, { text: "waiting" });
        mark = server.main.notifications.length;
        await server.main.request("turn/start", { threadId: thread.id, text: "plan it" });
        const turnId = (await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark })).turn.id;
        await waitUntil("the plan review", () => listener.reviews[0]);
        await decide(listener, verdict);
        const done = await server.main.waitForNotification("thread/turn/completed", (p) => p.turn.id === turnId, { since: mark, timeoutMs: 20_000 });
        assert.equal(done.turn.status, verdict === "dismiss" ? "interrupted" : "completed");

        assert.equal(listener.approvals.length, 1, "nobody was asked about the batched calls");
        assert.equal(existsSync(join(cwd, "batched-marker")), false, "the batched command never ran");
        assert.equal(existsSync(join(cwd, "batched.txt")), false, "nor did the batched write");
        const items = completedCalls(server.main, turnId);
        for (const refused of [bash, write]) {
          const item = items.get(refused.id);
          assert.equal(item?.status, "failed", `${refused.name} failed rather than ran`);
          assert.match(item?.output ?? "", WAIT_FOR_VERDICT, `${refused.name}'s error tells the model to wait for the verdict`);
        }
      } finally {
        listener.off();
      }
    });
  }
});
