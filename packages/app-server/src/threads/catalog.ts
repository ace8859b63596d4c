import { ThreadListing } from "@knightcode/store/listing/thread-listing";
import type { ListingChange } from "@knightcode/store/listing/types";
import type { ThreadStatus } from "@knightcode/app-server-protocol";
import type { ServerContext } from "../host/context.js";
import { ThreadLocator } from "./locate.js";
import { ThreadSequences } from "./sequences.js";
import type { Broadcaster } from "./thread-activity.js";

/**
 * The server's threads as they are on disk: where each transcript is, and
 * the listing built from the folder indexes. thread/list and thread/read
 * need nothing more, so they answer without loading the thread layer; the
 * thread manager, once it exists, shares this catalog and tells it what the
 * threads it holds are doing.
 *
 * A new server's first listing may come from the folder indexes alone
 * (store's index-stamp.ts); the look that follows tells what they had
 * wrong, and a thread renamed behind them reaches every connection as a
 * rename does. No spec notification carries a changed title or time: those
 * show in the next listing.
 */
export class ThreadCatalog {
  readonly locator: ThreadLocator;
  private listingValue: ThreadListing | undefined;
  private live: ((threadId: string) => ThreadStatus | undefined) | undefined;
  private closing: Promise<void> | undefined;
  /** The seq of every thread this process numbered, loaded or not: the thread manager numbers with the same. */
  readonly sequences = new ThreadSequences();
  /** The thread manager's broadcast, once there is one: it numbers a loaded thread's notifications with the thread's own. */
  private route: Broadcaster["broadcast"] | undefined;

  constructor(
    readonly context: ServerContext,
    /** Every connection, for what the listing finds changed before a thread manager exists. */
    private readonly server?: Broadcaster,
  ) {
    this.locator = new ThreadLocator(context);
  }

  /** The engine behind thread/list and thread/read's summaries; its counters are the server's. */
  get listing(): ThreadListing {
    this.listingValue ??= new ThreadListing({ counters: this.context.counters, trustIndex: true, onChanged: (changes) => this.announce(changes) });
    return this.listingValue;
  }

  /** The thread manager sends the catalog's notifications from now on. */
  attachBroadcast(broadcast: Broadcaster["broadcast"]): void {
    this.route = broadcast;
  }

  /** What the listing found behind a first page it served from the indexes. */
  private announce(changes: readonly ListingChange[]): void {
    for (const { before, after } of changes) {
      if (before === undefined || after?.name === undefined || after.name === before.name) continue;
      const params = { threadId: after.id, name: after.name };
      if (this.route !== undefined) this.route("thread/name/updated", params);
      else this.server?.broadcast("thread/name/updated", params, this.sequences.next(after.id));
    }
  }

  /** The thread manager reports the status of the threads it holds (and of those it lost). */
  attachStatus(live: (threadId: string) => ThreadStatus | undefined): void {
    this.live = live;
  }

  /** A thread's status, loaded or not. */
  statusOf(threadId: string): ThreadStatus {
    return this.live?.(threadId) ?? { type: "notLoaded" };
  }

  /** Ends the listing's folder watches and writes what its indexes still owe; safe to call again. */
  close(): Promise<void> {
    this.closing ??= (this.listingValue?.close() ?? Promise.resolve()).catch(() => undefined);
    return this.closing;
  }
}
