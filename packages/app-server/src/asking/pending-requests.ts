import type { ClientRequestResult } from "@knightcode/app-server-protocol";

/** One request the server waits on a person for, as `serverRequest/list` shows it. */
export type PendingRequest = ClientRequestResult<"serverRequest/list">["requests"][number];

/**
 * Every request the server's threads are waiting on, whoever is (or is
 * not) being asked: an entry goes in when a thread begins to ask and comes
 * out by the removal it was handed, which the asker runs however the
 * asking ends.
 */
export class PendingRequests {
  private readonly entries = new Set<PendingRequest>();

  /** Lists `request` until the returned removal runs. */
  add(request: PendingRequest): () => void {
    const entry = { ...request };
    this.entries.add(entry);
    return () => {
      this.entries.delete(entry);
    };
  }

  get size(): number {
    return this.entries.size;
  }

  /** Copies, oldest first. */
  list(): PendingRequest[] {
    return [...this.entries].map((entry) => ({ ...entry })).sort((a, b) => a.since - b.since);
  }
}
