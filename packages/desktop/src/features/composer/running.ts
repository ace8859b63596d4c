import { useEffect, useState } from "preact/hooks";
import { composer } from "./store.js";
import type { OpenThread } from "../../state/open-threads.js";

/**
 * The id of the thread's running turn, or undefined: from the last
 * (re)load's runningTurn, then turn/started and turn/completed. Steering
 * needs the id; whether the thread is busy also reads the thread's status.
 */
export function useRunningTurn(threadId: string, state: OpenThread | undefined): string | undefined {
  const loaded = state?.resumed.runningTurn?.id;
  const generation = state?.generation;
  const [turnId, setTurnId] = useState<string | undefined>(loaded);
  // A (re)load is the truth as of then: take its running turn again.
  useEffect(() => setTurnId(loaded), [generation]);
  useEffect(() => {
    return composer.onTurns(
      threadId,
      (id) => setTurnId(id),
      (id) => setTurnId((current) => (current === id ? undefined : current)),
    );
  }, [threadId]);
  return turnId;
}
