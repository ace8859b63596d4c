export { SessionFileError, type SessionFileErrorCode, type SessionFileErrorDetails } from "./errors.js";
export { ThreadFault, creationFailure, threadFault, type FaultReason } from "./fault.js";
export {
  SESSION_FORMAT_VERSION,
  isKnownEntry,
  parseEntryLine,
  serializeEntry,
  serializeHeader,
  type ApprovalEntry,
  type ClassificationEntry,
  type ApprovalModeEntry,
  type CompactionEntry,
  type CustomEntry,
  type CustomMessageEntry,
  type EntryBase,
  type EntryOfType,
  type KnownEntry,
  type KnownEntryType,
  type LabelEntry,
  type MessageEntry,
  type ModelChangeEntry,
  type NewEntry,
  type SessionEntry,
  type SessionHeader,
  type ThinkingLevelChangeEntry,
  type ThreadNameEntry,
  type TurnEndEntry,
  type TurnFilesEntry,
  type TurnStartEntry,
  type TurnStatus,
  type UnknownEntry,
  type WorkspaceEntry,
  type WorkspaceState,
} from "./format.js";
export { SESSION_DIR_ENV, projectFolderName, resolveSessionDir, sessionFileName, type SessionDir, type SessionDirInput, type SessionDirSource } from "./paths.js";
export { scanSession, type EntryRef, type ScanOptions, type SessionIndex, type SessionIssue, type SessionIssueKind } from "./scan.js";
export { branchPath, entriesById, readEntries, readSession, readSessionHeader, type ReadEntriesResult, type SessionSnapshot } from "./read.js";
export { SessionFile, type AppendOptions, type CreateSessionOptions, type SessionFileOptions } from "./session-file.js";
export { forkSession, type ForkOptions, type ForkResult } from "./fork.js";
export { isBodyless, readBranchPage, type BodylessEntry, type BranchCursor, type BranchPage, type BranchPageOptions } from "./read-page.js";
export { ARCHIVED_FOLDER, ArchiveConflictError, activePathOf, archivedPathOf, checkMovable, deleteTranscript, isArchivedPath, moveTranscript, type ArchiveRecovery } from "./archive.js";
