export { FileLock, LockHeldError, type LockHolder } from "./fs/file-lock.js";
export { writeFileAtomic, type AtomicWriteOptions } from "./fs/atomic-write.js";
