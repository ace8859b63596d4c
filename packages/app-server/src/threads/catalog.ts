import { ThreadListing } from "@knightcode/store/listing/thread-listing";
import type { ThreadStatus } from "@knightcode/app-server-protocol";
import type { ServerContext } from "../host/context.js";
import { ThreadLocator } from "./locate.js";

/**
 * The server's threads as they are on disk: where each transcript is, and
 * the listing built from the folder indexes. thread/list and thread/read
 * need nothing more, so they answer without loading the thread layer; the
 * thread manager, once it exists, shares this catalog and tells it what the
 * threads it holds are doing.
 */
export class ThreadCatalog {
  readonly locator: ThreadLocator;
  private listingValue: ThreadListing | undefined;
  private live: ((threadId: string) => ThreadStatus | undefined) | undefined;
  private closing: Promise<void> | undefined;

  constructor(readonly context: ServerContext) {
    this.locator = new ThreadLocator(context);
  }

  /** The engine behind thread/list and thread/read's summaries; its counters are the server's. */
  get listing(): ThreadListing {
    this.listingValue ??= new ThreadListing({ counters: this.context.counters });
    return this.listingValue;
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
