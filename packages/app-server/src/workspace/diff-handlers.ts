import type { ThreadHandlers } from "../threads/thread-handler.js";
import { readThreadDiff } from "./diff-read.js";
import { revertThreadDiff } from "./diff-revert.js";
import { stage, unstage } from "./diff-stage.js";

export const diffHandlers = {
  "thread/diff/read": readThreadDiff,
  "thread/diff/revert": revertThreadDiff,
  "git/stage": stage,
  "git/unstage": unstage,
} satisfies ThreadHandlers;
