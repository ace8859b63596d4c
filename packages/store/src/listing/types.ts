import type { FileHandle } from "node:fs/promises";
import type { WorkspaceState } from "../session/format.js";

/** One thread as its transcript tells it: what the listing keeps (the wire's ThreadSummary adds its status and session file). */
export interface StoredThreadSummary {
  id: string;
  /** The thread's name when one was set, else the first line of its first user message; bounded, never a whole message. */
  title: string;
  /** The latest name set on the thread (a `thread_name` entry), when there is one. */
  name?: string;
  cwd: string;
  /** ISO 8601, from the header. */
  createdAt: string;
  /** ISO 8601: the transcript's modification time. */
  updatedAt: string;
  /** The header id of the thread this one was forked from. */
  forkedFromId?: string;
  /** Only on a sub-agent: the thread whose model started it. */
  parentThreadId?: string;
  /** Only on a sub-agent: the id of the parent's tool call that started it. */
  parentCallId?: string;
  /** "worktree" for a thread that runs in a managed worktree of its own. */
  workspaceMode: "local" | "worktree";
  /** Where the thread runs, when a workspace entry said so (a worktree thread, or one handed off). */
  workspace?: WorkspaceState;
  /** The transcript file. */
  path: string;
  archived: boolean;
}

export interface ListRequest {
  /** The sessions folders to consider; `archived` lists their `archived/` subfolders instead. */
  folders: readonly string[];
  /** Only threads whose header cwd (their project) resolves to this path, or that run in this very folder. */
  cwd?: string;
  archived?: boolean;
  /** Only threads whose title contains this text, ignoring case. */
  search?: string;
  /** Only threads whose header names this thread as their parent: the sub-agents it started. */
  parentThreadId?: string;
  /** From a previous page; the other fields must keep the same filters. */
  cursor?: string;
  /** 1 to 200; 50 by default. */
  limit?: number;
  /** Stops a long (cold) refresh; what was read by then stays cached. */
  signal?: AbortSignal;
}

export interface ListResult {
  threads: StoredThreadSummary[];
  nextCursor?: string;
}

/** Cumulative diagnostics; the server passes its own counters object so they show in server/diagnostics. */
export interface ListingCounters {
  /** Transcripts opened, parent-header lookups included. */
  listingFilesOpened: number;
  /** Transcript bytes read; index reads and stats are not counted. */
  listingBytesScanned: number;
}

/** Opens a transcript for reading. */
export type OpenTranscript = (path: string) => Promise<FileHandle>;

export interface ThreadListingOptions {
  counters?: ListingCounters;
  /** Unix milliseconds, for snapshot expiry. */
  now?: () => number;
  /** Replaces fs.open for transcripts; tests count open handles through it. */
  openTranscript?: OpenTranscript;
  /** Transcripts per shard of a folder's index; tests make shards small. */
  indexShardRecords?: number;
  /** From how many transcripts a folder's full look runs on a worker thread; tests make it small. */
  workerLookNames?: number;
  /**
   * A folder's first page may come from its index alone when the index's
   * stamp holds (see index-stamp.ts); the full look follows in the
   * background and reports what it found changed through `onChanged`.
   */
  trustIndex?: boolean;
  /** Threads the look after a trusted first page found other than the index said; called outside any listing. */
  onChanged?: (changes: readonly ListingChange[]) => void;
}

/** A thread as a first page served it from the index and as its transcript now is: `before` absent for one that appeared, `after` for one that went. */
export interface ListingChange {
  before?: StoredThreadSummary;
  after?: StoredThreadSummary;
}
