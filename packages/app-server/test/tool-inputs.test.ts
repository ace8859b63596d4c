import assert from "node:assert/strict";
import { test } from "node:test";
import type { AskUserParams } from "@knightcode/agent/tools/ask-user";
import type { BashParams } from "@knightcode/agent/tools/bash";
import type { EditParams } from "@knightcode/agent/tools/edit";
import type { FindParams } from "@knightcode/agent/tools/find";
import type { GrepParams } from "@knightcode/agent/tools/grep";
import type { LsParams } from "@knightcode/agent/tools/ls";
import type { ReadParams } from "@knightcode/agent/tools/read";
import type { SubmitPlanParams } from "@knightcode/agent/tools/submit-plan";
import type { WebSearchParams } from "@knightcode/agent/tools/websearch";
import type { WriteParams } from "@knightcode/agent/tools/write";
import type { BuiltinToolInputs } from "@knightcode/app-server-protocol";

/** True only when A and B are the same type, optional fields included. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * The protocol's types of our tools' inputs, written by hand because the
 * protocol package carries no agent code, against each tool's own schema:
 * a tool that gains, loses or retypes a parameter fails this file's build.
 */
const sameAsTheTools: { [T in keyof BuiltinToolInputs]: true } = {
  bash: true satisfies Same<BuiltinToolInputs["bash"], BashParams>,
  read: true satisfies Same<BuiltinToolInputs["read"], ReadParams>,
  write: true satisfies Same<BuiltinToolInputs["write"], WriteParams>,
  edit: true satisfies Same<BuiltinToolInputs["edit"], EditParams>,
  ls: true satisfies Same<BuiltinToolInputs["ls"], LsParams>,
  grep: true satisfies Same<BuiltinToolInputs["grep"], GrepParams>,
  find: true satisfies Same<BuiltinToolInputs["find"], FindParams>,
  websearch: true satisfies Same<BuiltinToolInputs["websearch"], WebSearchParams>,
  submit_plan: true satisfies Same<BuiltinToolInputs["submit_plan"], SubmitPlanParams>,
  ask_user: true satisfies Same<BuiltinToolInputs["ask_user"], AskUserParams>,
};

test("the protocol types every built-in tool's input as the tool's schema does", () => {
  assert.equal(Object.keys(sameAsTheTools).length, 10);
});
