import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SessionFileError } from "../../src/session/errors.js";
import { ThreadFault, creationFailure, threadFault } from "../../src/session/fault.js";

/** A write failure as the appender reports it: the errno error as its cause. */
function writeFailure(code: string): SessionFileError {
  const cause = Object.assign(new Error(`${code}: it failed, write`), { code });
  return new SessionFileError("writeFailed", `could not append to /s/t.jsonl: ${cause.message}`, { path: "/s/t.jsonl", cause });
}

describe("threadFault: why a thread stopped, in words a user can act on", () => {
  const cases: [string, RegExp, RegExp][] = [
    ["ENOSPC", /the disk holding the sessions folder is full/, /Free some space on it, then resume the thread/],
    ["EDQUOT", /the disk quota of the sessions folder is used up/, /Free space within the quota/],
    ["EROFS", /the file system holding the sessions folder became read-only/, /Make it writable again/],
    ["EIO", /the disk holding the sessions folder reported an I\/O error/, /Check the disk/],
    ["EACCES", /permission denied/, /write access/],
    ["EFBIG", /the largest size its file system allows/, /Fork the thread/],
    ["EMFILE", /the session file could not be written/, /Fix the cause, then resume the thread/],
  ];
  for (const [code, headline, remedy] of cases) {
    test(`${code}`, () => {
      const fault = threadFault(writeFailure(code));
      assert.ok(fault instanceof ThreadFault);
      assert.match(fault.message, /^The thread stopped: /);
      assert.match(fault.message, headline);
      assert.match(fault.message, remedy);
      assert.ok(fault.message.includes(`could not append to /s/t.jsonl: ${code}`), "the detail names the file and the error");
      assert.equal(fault.resumable, true);
    });
  }

  test("a short write with no errno still reads as a failed write", () => {
    const fault = threadFault(new SessionFileError("writeFailed", "could not append to /s/t.jsonl: only 3 of 9 bytes were written", { path: "/s/t.jsonl" }));
    assert.equal(fault.reason, "writeFailed");
  });

  test("ownership lost: another process has the thread, and nothing unsaved may be written later", () => {
    const fault = threadFault(
      new SessionFileError("ownershipLost", "/s/t.jsonl: ownership lost: its lock was removed or taken by another process", { path: "/s/t.jsonl" }),
    );
    assert.equal(fault.reason, "ownershipLost");
    assert.equal(fault.resumable, false);
    assert.match(fault.message, /^The thread stopped: another process took this thread over \(.*ownership lost.*\)\. This process writes nothing more to it/);
  });

  test("a transcript that could not be created says why in the same words, and what to do", () => {
    const cause = Object.assign(new Error("ENOSPC: no space left on device, open '/s/t.jsonl'"), { code: "ENOSPC" });
    assert.equal(
      creationFailure("the thread", cause),
      "Could not create the thread: the disk holding the sessions folder is full (ENOSPC: no space left on device, open '/s/t.jsonl'). Free some space on it, then try again.",
    );
    assert.equal(creationFailure("the thread", new Error("not a disk problem")), undefined);
  });

  test("a fault is described once", () => {
    const fault = threadFault(writeFailure("ENOSPC"));
    assert.equal(threadFault(fault), fault);
  });
});
