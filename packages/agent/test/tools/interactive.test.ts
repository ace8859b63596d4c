import assert from "node:assert/strict";
import { test } from "node:test";
import { createAskUserTool, type AskUserQuestion } from "../../src/tools/ask-user.js";
import { createSubmitPlanTool } from "../../src/tools/submit-plan.js";
import { rejectsWith, textOf } from "./support.js";

const ctx = { cwd: "/" };
const questions: AskUserQuestion[] = [
  { id: "db", question: "Which database?", options: [{ label: "Postgres (Recommended)" }, { label: "SQLite", description: "A file" }] },
  { id: "name", question: "Project name?", options: [{ label: "kc" }] },
  { id: "ci", question: "Add CI?", options: [{ label: "Yes" }, { label: "No" }] },
];

test("without a handler, ask_user and submit_plan say they are not available", async () => {
  await rejectsWith(createAskUserTool(ctx).execute("c", { questions }), "notAvailable", /ask_user is not available in this session/);
  await rejectsWith(createSubmitPlanTool(ctx).execute("c", { plan: "do it" }), "notAvailable", /submit_plan is not available in this session/);
});

test("ask_user passes the questions, the call id and the signal to the handler and reports the answers", async () => {
  const controller = new AbortController();
  let received: { questions: AskUserQuestion[]; toolCallId: string; signal: AbortSignal | undefined } | undefined;
  const tool = createAskUserTool(ctx, async (asked, call) => {
    received = { questions: asked, toolCallId: call.toolCallId, signal: call.signal };
    return { db: { label: "SQLite", note: "keep it small" }, name: { other: "knight" } };
  });
  const result = await tool.execute("call-7", { questions }, controller.signal);
  assert.deepEqual(received, { questions, toolCallId: "call-7", signal: controller.signal });
  assert.equal(
    textOf(result),
    "Q: Which database?\nA: SQLite (note: keep it small)\n\nQ: Project name?\nA: (in their own words) knight\n\nQ: Add CI?\nA: (skipped)",
  );
  assert.equal(result.details.dismissed, false);
  assert.equal(result.terminate, undefined);
});

test("a dismissal ends the turn, and duplicate question ids are refused", async () => {
  const dismissed = await createAskUserTool(ctx, async () => undefined).execute("c", { questions });
  assert.equal(textOf(dismissed), "The user dismissed the questions without answering.");
  assert.equal(dismissed.terminate, true);
  const twice = [questions[0]!, { ...questions[1]!, id: "db" }];
  await rejectsWith(createAskUserTool(ctx, async () => ({})).execute("c", { questions: twice }), "invalidArgument", /"db" is used twice/);
});

test("submit_plan reports the review with its feedback", async () => {
  let seen = "";
  const tool = createSubmitPlanTool(ctx, async (plan) => {
    seen = plan;
    return plan.includes("tests") ? { approved: true } : { approved: false, feedback: "Add tests." };
  });
  const rejected = await tool.execute("c", { plan: "1. Change code" });
  assert.equal(seen, "1. Change code");
  assert.equal(textOf(rejected), "The user did not approve the plan.\n\nFeedback: Add tests.");
  assert.deepEqual(rejected.details, { approved: false, feedback: "Add tests." });
  assert.equal(textOf(await tool.execute("c", { plan: "1. Change code\n2. Run tests" })), "The user approved the plan. Carry it out now.");
});
