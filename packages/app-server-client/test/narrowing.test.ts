import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  AppServerError,
  isInlineItem,
  isItemReference,
  isToolApproval,
  type ApprovalInput,
  type ApprovalRequest,
  type ErrorData,
  type HistoryItem,
} from "../src/index.js";

/*
 * The narrowing a client relies on, checked twice: the assertions run, and
 * the `@ts-expect-error` lines fail the build the day a type stops
 * narrowing (an unused `@ts-expect-error` is itself an error).
 */

const inline: HistoryItem = { id: "call_1", type: "toolCall", index: 0, name: "bash", input: { command: "ls" }, status: "completed" };
const byReference: HistoryItem = { id: "call_2", type: "toolCall", index: 1, payloadRef: { id: "p1", bytes: 300_000 } };

describe("history items narrow on isItemReference, then on type", () => {
  test("a reference is told apart from an inline item of the same type", () => {
    assert.equal(isItemReference(inline), false);
    assert.equal(isItemReference(byReference), true);
    assert.equal(isInlineItem(inline), true);
  });

  test("type alone leaves a reference possible; isInlineItem rules it out", () => {
    const names: string[] = [];
    for (const item of [inline, byReference]) {
      if (item.type === "toolCall") {
        // @ts-expect-error a reference of type toolCall has no name
        void item.name;
      }
      if (isItemReference(item)) {
        assert.equal(item.payloadRef.bytes, 300_000);
        // @ts-expect-error a reference has no status of its own
        void item.status;
      } else if (item.type === "toolCall") names.push(item.name);
    }
    assert.deepEqual(names, ["bash"]);
  });
});

describe("error data narrows by code", () => {
  test("is(code) narrows data to that code's fields", () => {
    const error: AppServerError = new AppServerError({ code: "turnInProgress", message: "a turn is running", data: { turnId: "t1" } });
    assert.equal(error.is("turnMismatch"), false);
    if (error.is("turnInProgress")) {
      const turnId: string | undefined = error.data?.turnId;
      assert.equal(turnId, "t1");
      // @ts-expect-error turnInProgress names a turnId, which is a string
      const wrong: number | undefined = error.data?.turnId;
      void wrong;
    } else assert.fail("is(turnInProgress)");
  });

  test("each code's data has the fields the docs give it", () => {
    const git: ErrorData<"gitConflict"> = { reason: "localChanges", paths: ["a.txt"] };
    const config: ErrorData<"configConflict"> = { version: "v2" };
    const params: ErrorData<"invalidParams"> = { reason: "modelNotFound" };
    // @ts-expect-error gitConflict's paths are a list
    const badPaths: ErrorData<"gitConflict"> = { paths: "a.txt" };
    // @ts-expect-error configConflict's version is a string
    const badVersion: ErrorData<"configConflict"> = { version: 2 };
    assert.deepEqual([git.paths, config.version, params.reason, badPaths.paths, badVersion.version], [["a.txt"], "v2", "modelNotFound", "a.txt", 2]);
  });
});

describe("an approval's input is typed where the tool is ours", () => {
  const ask = (tool: string, input: unknown): ApprovalRequest => ({ threadId: "th", turnId: "t", itemId: "c", tool, input, decisions: ["accept", "decline"] });

  test("isToolApproval narrows input to the tool's parameters", () => {
    const request = ask("bash", { command: "ls -la", timeout: 5 });
    if (!isToolApproval(request, "bash")) return assert.fail("a bash request");
    const command: string | undefined = request.input?.command;
    assert.equal(command, "ls -la");
    // @ts-expect-error bash takes no path
    void request.input?.path;
    const edit: ApprovalInput<"edit"> = { path: "a.ts", oldText: "a", newText: "b" };
    // @ts-expect-error write needs content
    const write: ApprovalInput<"write"> = { path: "a.ts" };
    assert.ok(edit && write);
  });

  test("another tool, or ours by name with another shape, is not narrowed", () => {
    assert.equal(isToolApproval(ask("deploy", { command: "ls" }), "bash"), false);
    assert.equal(isToolApproval(ask("bash", { cmd: "ls" }), "bash"), false);
    assert.equal(isToolApproval(ask("edit", { path: "a", oldText: "x" }), "edit"), false);
    assert.equal(isToolApproval({ ...ask("write", undefined), inputRef: { id: "p", bytes: 1 } }, "write"), true);
  });
});
