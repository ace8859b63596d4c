export { ListingError, type CursorProblem, type ListingErrorCode } from "./errors.js";
export { ThreadListing, DEFAULT_LIMIT, MAX_LIMIT } from "./thread-listing.js";
export { INDEX_FILE, MAX_INDEX_BYTES } from "./index-file.js";
export { MAX_OPEN_TRANSCRIPTS } from "./folder.js";
export { MAX_SNAPSHOTS, SNAPSHOT_TTL_MS } from "./snapshots.js";
export { MAX_RESPONSE_BYTES, THREADS_BUDGET } from "./page.js";
export { NAME_MAX, TITLE_MAX, titleFromText } from "./title.js";
export type { ListRequest, ListResult, ListingCounters, OpenTranscript, ThreadListingOptions, StoredThreadSummary } from "./types.js";
