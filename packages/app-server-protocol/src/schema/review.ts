import { Type } from "typebox";
import { Closed } from "./common.js";
import { request } from "./define.js";
import { reasons } from "../reasons.js";
import { Turn } from "./threads.js";

const ThreadId = Type.String({ minLength: 1, maxLength: 128, description: "The thread's id." });

/** The longest focus a review takes, in characters. */
export const MAX_REVIEW_FOCUS = 4000;

export const ReviewScope = Type.Union([Type.Literal("uncommitted"), Type.Literal("branch"), Type.Literal("commit"), Type.Literal("lastTurn")], {
  $id: "ReviewScope",
  description:
    "uncommitted: HEAD with the working tree; branch: the merge base with `against` (else as thread/diff/read's branch scope chooses) with the working tree; commit: `commit` with its first parent; lastTurn: the thread's last turn, or `turnId`.",
});

export const review = {
  clientRequests: {
    "review/start": request({
      params: Type.Object(
        {
          threadId: ThreadId,
          scope: ReviewScope,
          against: Type.Optional(
            Type.String({ minLength: 1, maxLength: 1024, description: "branch only: the ref to compare with (its merge base with HEAD)." }),
          ),
          commit: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "commit only, and needed there: the commit to review." })),
          turnId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "lastTurn only: that turn of the thread rather than the last one." })),
          focus: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: MAX_REVIEW_FOCUS,
              description: "What the review should look at most, in the user's words (at most 4,000 characters).",
            }),
          ),
          delivery: Type.Optional(
            Type.Union([Type.Literal("inline"), Type.Literal("detached")], {
              description:
                "inline (the default): the review turn runs in the thread itself; detached: in a new child thread of the thread (its parentThreadId), in the same folder.",
            }),
          ),
        },
        Closed,
      ),
      result: Type.Object(
        {
          turn: Turn,
          threadId: Type.String({ description: "The thread the review turn runs in: the thread itself, or the detached review's new child thread." }),
        },
        Closed,
      ),
      errors: ["threadNotFound", "notGitRepo", "turnInProgress", "authRequired"],
      reasons: reasons("noModel", "modelNotFound"),
      doc: "Beyond the spec: starts a review turn over one diff scope, read with hunk ids at context 3. The user message carries the review's instructions, the focus and the diff (cut, with a note, past 200,000 characters); the turn offers the model report_finding, whose findings arrive as reviewFinding items. invalidParams for an empty diff, a field of another scope, a commit or ref that resolves to nothing; turnInProgress while the thread runs a turn.",
    }),
    "review/finding/apply": request({
      params: Type.Object(
        {
          threadId: ThreadId,
          findingId: Type.String({ minLength: 1, maxLength: 128, description: "A reviewFinding item's findingId." }),
        },
        Closed,
      ),
      result: Type.Object({ paths: Type.Array(Type.String(), { description: "The files the suggestion changed, relative to the repository root." }) }, Closed),
      errors: ["threadNotFound", "notGitRepo", "turnInProgress", "gitConflict"],
      reasons: reasons("diffChanged", "patchFailed"),
      doc: "Beyond the spec: writes a finding's suggestion over its lines in the working tree, as a patch, with every thread of the checkout held. gitConflict diffChanged (nothing changed) when the hunk or the lines are no longer as the review read them; invalidParams for an unknown finding or one without a suggestion.",
    }),
  },
  serverNotifications: {},
} as const;
