import { useCallback, useRef, useState } from "preact/hooks";
import type { ThreadDiffReadResult } from "@knightcode/app-server-protocol";
import { problemFrom, type Problem } from "./problem.js";
import { workspace, type DiffQuery } from "./store.js";
import { useWorkspaceReload } from "./use-reload.js";

/**
 * The thread's diff in one scope, read again when the query changes, when a
 * turn changed files, and when the thread reloads elsewhere (a handoff).
 * Answers that arrive after a newer read started are dropped.
 */
export function useDiff(threadId: string, query: DiffQuery) {
  const [diff, setDiff] = useState<ThreadDiffReadResult | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const latest = useRef(0);
  const { scope, commit, against, turnId } = query;

  const load = useCallback(async () => {
    const ticket = ++latest.current;
    setLoading(true);
    try {
      const answer = await workspace.readDiff(threadId, {
        scope,
        ...(commit ? { commit } : {}),
        ...(against ? { against } : {}),
        ...(turnId ? { turnId } : {}),
      });
      if (ticket !== latest.current) return;
      setDiff(answer);
      setProblem(undefined);
    } catch (error) {
      if (ticket !== latest.current) return;
      setDiff(undefined);
      setProblem(problemFrom(error, "Reading the changes"));
    } finally {
      if (ticket === latest.current) setLoading(false);
    }
  }, [threadId, scope, commit, against, turnId]);

  useWorkspaceReload(threadId, load);
  return { diff, problem, loading, load, setProblem };
}
