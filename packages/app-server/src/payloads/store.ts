import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, open, rm, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PayloadError } from "./errors.js";

/** Bytes per `payload/read` chunk, before base64. */
export const PAYLOAD_CHUNK_BYTES = 48 * 1024;
/** A reference lives this long after its last put or read. */
export const PAYLOAD_TTL_MS = 30 * 60_000;
/** What the spool may hold at once; older references are evicted to make room. */
export const MAX_SPOOL_BYTES = 1024 * 1024 * 1024;
const SWEEP_INTERVAL_MS = 60_000;
/** A spool folder is `<prefix><pid>-XXXXXX`: the pid tells a later server whether its owner still runs. */
export const SPOOL_FOLDER_PREFIX = "knightcode-spool-";

/** 16 random bytes in lowercase hex: no separator, dot or case to play with, on any file system. */
const ID_PATTERN = /^[0-9a-f]{32}$/;

export interface PayloadRef {
  id: string;
  bytes: number;
}

export interface PayloadChunk {
  /** Base64 of at most PAYLOAD_CHUNK_BYTES bytes. */
  data: string;
  eof: boolean;
  /** The byte offset of the next chunk, when one remains. */
  nextOffset?: number;
}

/** Anything that turns a value into a reference: the store, as the reference rules see it. */
export interface PayloadSink {
  put(value: string | Uint8Array): PayloadRef;
  /** Keeps a reference this sink issued alive as a put of its value would; false when it is gone. */
  renew?(ref: PayloadRef): boolean;
}

export interface PayloadStoreOptions {
  /** The folder the spool folder is created in; the system temp folder by default. */
  root?: string;
  ttlMs?: number;
  maxBytes?: number;
  sweepIntervalMs?: number;
  now?: () => number;
  /** Kept exact: the files and bytes the store holds. */
  counters?: { payloadFiles: number; payloadBytes: number };
  /** Where a failed spool write or removal is reported. */
  onError?: (message: string, error: unknown) => void;
}

interface Entry {
  readonly id: string;
  readonly hash: string;
  readonly bytes: number;
  lastAccess: number;
  /** Settles (never rejects) once the file is written or has failed. */
  written: Promise<void>;
  failure?: string;
}

/** True for a string the store could have issued as an id; nothing else reaches the file system. */
export function isPayloadId(id: unknown): id is string {
  return typeof id === "string" && ID_PATTERN.test(id);
}

/**
 * Large values as immutable spool files: `put` answers a reference at once
 * (the file is written in the background and reads wait for it), `read`
 * serves a byte range. Only ids this store issued and still holds are ever
 * turned into paths. Identical values share one file. References expire
 * after a sliding TTL; when the spool is full, the least recently used go
 * first. The entry map is kept in access order, so both sweeps stop at the
 * first entry that stays.
 */
export class PayloadStore implements PayloadSink {
  private readonly entries = new Map<string, Entry>();
  private readonly byHash = new Map<string, Entry>();
  private readonly pendingIo = new Set<Promise<void>>();
  private readonly counters: { payloadFiles: number; payloadBytes: number };
  private readonly ttlMs: number;
  private readonly maxBytes: number;
  private readonly now: () => number;
  private readonly held = { files: 0, bytes: 0 };
  private folder: Promise<string> | undefined;
  private folderPath: string | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private disposed: Promise<void> | undefined;

  constructor(private readonly options: PayloadStoreOptions = {}) {
    this.counters = options.counters ?? { payloadFiles: 0, payloadBytes: 0 };
    this.ttlMs = options.ttlMs ?? PAYLOAD_TTL_MS;
    this.maxBytes = options.maxBytes ?? MAX_SPOOL_BYTES;
    this.now = options.now ?? Date.now;
  }

  /** The spool folder, once the first value created it. */
  get spoolPath(): string | undefined {
    return this.folderPath;
  }

  /** The files and bytes held now: written or being written, not yet removed. */
  get size(): { files: number; bytes: number } {
    return { ...this.held };
  }

  put(value: string | Uint8Array): PayloadRef {
    if (this.disposed) throw new PayloadError("closed", "the payload store is closed");
    const data = typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.from(value);
    const hash = createHash("sha256").update(data).digest("hex");
    const existing = this.byHash.get(hash);
    if (existing && existing.failure === undefined && this.live(existing)) {
      this.touch(existing);
      return { id: existing.id, bytes: existing.bytes };
    }
    if (data.length > this.maxBytes) {
      throw new PayloadError("tooLarge", `a value of ${data.length} bytes is larger than the ${this.maxBytes}-byte spool`);
    }
    this.makeRoom(data.length);
    const entry: Entry = { id: randomBytes(16).toString("hex"), hash, bytes: data.length, lastAccess: this.now(), written: Promise.resolve() };
    entry.written = this.track(this.write(entry, data));
    this.entries.set(entry.id, entry);
    this.byHash.set(hash, entry);
    this.count(1, entry.bytes);
    this.startSweeper();
    return { id: entry.id, bytes: entry.bytes };
  }

  /** Renews a reference without its value: true when it is still held and usable, as a put would find it. */
  renew(ref: PayloadRef): boolean {
    if (this.disposed) return false;
    const entry = isPayloadId(ref.id) ? this.entries.get(ref.id) : undefined;
    if (!entry || entry.bytes !== ref.bytes || entry.failure !== undefined || !this.live(entry)) return false;
    this.touch(entry);
    return true;
  }

  /** Up to PAYLOAD_CHUNK_BYTES bytes from byte `offset`; renews the reference. */
  async read(id: string, offset: number): Promise<PayloadChunk> {
    if (this.disposed) throw new PayloadError("closed", "the payload store is closed");
    if (!Number.isSafeInteger(offset) || offset < 0) throw new PayloadError("invalidOffset", "offset must be a non-negative integer");
    const entry = isPayloadId(id) ? this.entries.get(id) : undefined;
    if (!entry || !this.live(entry)) throw unknownPayload();
    this.touch(entry);
    await entry.written;
    if (this.entries.get(id) !== entry) throw unknownPayload();
    if (entry.failure !== undefined) throw new PayloadError("spoolFailed", `the payload could not be spooled: ${entry.failure}`);
    if (offset > entry.bytes) {
      throw new PayloadError("offsetOutOfRange", `offset ${offset} is past the payload's ${entry.bytes} bytes`, { bytes: entry.bytes });
    }
    const length = Math.min(PAYLOAD_CHUNK_BYTES, entry.bytes - offset);
    const data = await this.readRange(entry, offset, length);
    const end = offset + length;
    return end < entry.bytes ? { data: data.toString("base64"), eof: false, nextOffset: end } : { data: data.toString("base64"), eof: true };
  }

  /** Removes every expired reference and its file; answers how many went. */
  async sweep(): Promise<number> {
    const now = this.now();
    const expired: Entry[] = [];
    for (const entry of this.entries.values()) {
      if (now - entry.lastAccess < this.ttlMs) break;
      expired.push(entry);
    }
    for (const entry of expired) this.drop(entry);
    await this.settled();
    return expired.length;
  }

  /** Resolves once every write and removal started so far has finished. */
  async settled(): Promise<void> {
    while (this.pendingIo.size > 0) await Promise.all(this.pendingIo);
  }

  /** Stops the sweeper, waits for writes, removes the spool folder. Safe to call twice. */
  dispose(): Promise<void> {
    this.disposed ??= (async () => {
      if (this.sweeper) clearInterval(this.sweeper);
      for (const entry of [...this.entries.values()]) this.drop(entry);
      await this.settled();
      const folder = await this.folder?.catch(() => undefined);
      if (folder) await rm(folder, { recursive: true, force: true });
    })();
    return this.disposed;
  }

  private live(entry: Entry): boolean {
    if (this.now() - entry.lastAccess < this.ttlMs) return true;
    this.drop(entry);
    return false;
  }

  /** Moves the entry to the recent end of the map: the map's order is least recently used first. */
  private touch(entry: Entry): void {
    entry.lastAccess = this.now();
    this.entries.delete(entry.id);
    this.entries.set(entry.id, entry);
  }

  private makeRoom(bytes: number): void {
    for (const entry of [...this.entries.values()]) {
      if (this.held.bytes + bytes <= this.maxBytes) return;
      this.options.onError?.(`payload spool full: evicting ${entry.id} (${entry.bytes} bytes)`, undefined);
      this.drop(entry);
    }
  }

  /** Forgets the entry at once; its file goes once its write has finished. */
  private drop(entry: Entry): void {
    if (this.entries.get(entry.id) !== entry) return;
    this.entries.delete(entry.id);
    if (this.byHash.get(entry.hash) === entry) this.byHash.delete(entry.hash);
    if (entry.failure !== undefined) return;
    this.release(entry);
    const removal = entry.written.then(async () => {
      if (entry.failure !== undefined) return;
      await unlink(join(await this.spool(), entry.id)).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") this.options.onError?.(`removing payload ${entry.id} failed`, error);
      });
    });
    this.track(removal);
  }

  private release(entry: Entry): void {
    this.count(-1, -entry.bytes);
  }

  private count(files: number, bytes: number): void {
    this.held.files += files;
    this.held.bytes += bytes;
    this.counters.payloadFiles += files;
    this.counters.payloadBytes += bytes;
  }

  private track(work: Promise<void>): Promise<void> {
    const safe = work.catch((error: unknown) => this.options.onError?.("payload spool work failed", error));
    this.pendingIo.add(safe);
    void safe.finally(() => this.pendingIo.delete(safe));
    return safe;
  }

  /** The spool folder, created on first use (mkdtemp makes it 0700). */
  private spool(): Promise<string> {
    this.folder ??= mkdtemp(join(this.options.root ?? tmpdir(), `${SPOOL_FOLDER_PREFIX}${process.pid}-`)).then(
      (path) => (this.folderPath = path),
      (error: unknown) => {
        this.folder = undefined;
        throw error;
      },
    );
    return this.folder;
  }

  /** Writes the file once (created read-only, refused if the name exists); a failure leaves no file and is kept for readers. */
  private async write(entry: Entry, data: Buffer): Promise<void> {
    let path: string | undefined;
    try {
      path = join(await this.spool(), entry.id);
      const handle = await open(path, "wx", 0o400);
      try {
        await handle.writeFile(data);
      } finally {
        await handle.close();
      }
    } catch (error) {
      entry.failure = error instanceof Error ? error.message : String(error);
      this.options.onError?.(`spooling payload ${entry.id} failed`, error);
      if (this.entries.get(entry.id) === entry) this.release(entry);
      if (path) await unlink(path).catch(() => undefined);
    }
  }

  private async readRange(entry: Entry, offset: number, length: number): Promise<Buffer> {
    const buffer = Buffer.alloc(length);
    let handle;
    try {
      handle = await open(join(await this.spool(), entry.id), "r");
    } catch (error) {
      // Evicted or expired between the lookup and the open: as unknown as any other.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw unknownPayload();
      throw new PayloadError("spoolFailed", `the payload could not be read: ${(error as Error).message}`);
    }
    try {
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle.read(buffer, filled, length - filled, offset + filled);
        if (bytesRead === 0) throw new PayloadError("spoolFailed", `the payload file ended at ${offset + filled} of ${entry.bytes} bytes`);
        filled += bytesRead;
      }
      return buffer;
    } finally {
      await handle.close();
    }
  }

  private startSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      this.sweep().catch((error: unknown) => this.options.onError?.("sweeping payloads failed", error));
    }, this.options.sweepIntervalMs ?? SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }
}

function unknownPayload(): PayloadError {
  return new PayloadError("unknownPayload", "unknown or expired payload reference; read the thread again for new references");
}
