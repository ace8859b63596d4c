/** The sandbox a platform has: bubblewrap on Linux, Seatbelt on macOS, none elsewhere. */
export type SandboxKind = "bwrap" | "seatbelt" | "none";

/** Something a sandboxed command must not see at all. */
export interface HiddenPath {
  path: string;
  /** A folder is replaced by an empty one; a file by an empty file. */
  folder: boolean;
}

/**
 * What one sandboxed command may do. Every path is absolute with its links
 * resolved, as the kernel sees it; the builders of each sandbox turn it into
 * their own terms and test nothing on disk.
 */
export interface SandboxPolicy {
  /**
   * The thread's private temporary folder, writable at its own path, where
   * TMPDIR points. /tmp itself stays read-only like the rest: another
   * user's files there are never written, and every tool of the thread
   * (sandboxed or not) sees one and the same file system.
   */
  tmp: string;
  /** Folders the command may write: the thread's folder and the git folders it works in. */
  writable: readonly string[];
  /** Paths inside writable folders that stay read-only: the places whose files decide what later runs. */
  readOnly: readonly string[];
  /** Folders and files that are not visible: the agent folder, the token file, other temporary folders. */
  hidden: readonly HiddenPath[];
  /** With the network off, the command has its own loopback and nothing else. */
  network: boolean;
}
