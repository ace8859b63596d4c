import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import type { Jiti, TransformOptions, TransformResult } from "jiti";
import { LRUCache } from "lru-cache";
import { openRegularFile } from "@knightcode/system/fs/regular-file";
import { privateFolder } from "./private-folder.js";
import type { ExtensionFactory } from "./types.js";

const DEFAULT_MAX_INACTIVE = 256;

export interface FactoryCacheCounts {
  /** Cached file versions no thread holds: kept for the next load, evicted least recently used first. */
  inactive: number;
  /** Cached file versions some thread holds (or is loading); never evicted. */
  leased: number;
}

export interface ExtensionFactoryCacheOptions {
  /** How many inactive entries to keep; 256 by default. */
  maxInactive?: number;
  /** Called after the counts change; a throwing listener is ignored. */
  onChange?(counts: FactoryCacheCounts): void;
  /**
   * Where transformed code is kept across restarts (`<agentDir>/cache/jiti`
   * for the server). The server runs what it finds there, so the folder and
   * its parent must be this user's alone; one that is not is replaced (see
   * privateFolder). Without it, nothing is kept on disk.
   */
  diskCache?: string;
  /** Told when the disk cache's folder was not as it must be. */
  onWarning?(message: string): void;
}

/** One thread's hold on an extension file's cached code, with the instance it evaluated. */
export interface FactoryLease {
  /** The default export of a fresh evaluation: its module state belongs to this lease alone. */
  readonly factory: ExtensionFactory;
  /** The file that was evaluated (a folder's index file when the path named a folder). */
  readonly filename: string;
  /** Gives the hold back; calling it again does nothing. */
  release(): void;
}

/** An extension module that evaluated but cannot be used. */
export class ExtensionLoadError extends Error {
  override readonly name = "ExtensionLoadError";
  readonly code = "extensionLoadFailed";

  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

interface Compiled {
  source: string;
  code: string;
  /** The version the source was read from. */
  signature: string;
}

/** One version of one file: what it held and what jiti turned it into. */
interface Entry {
  filename: string;
  signature: string;
  compiled: Promise<Compiled>;
  /** Loads in progress plus unreleased leases. */
  holds: number;
  /** Some evaluation produced a factory: the code is known to be good. */
  succeeded: boolean;
}

interface Loader {
  /** Resolves paths and transforms, keeping transformed code on disk across restarts. */
  compiler: Jiti;
  /** Evaluates modules afresh, asking this cache for transformed code. */
  evaluator: Jiti;
}

let aliases: Record<string, string> | undefined;

/** Packages an extension can import from our installation: TypeBox for tool schemas. */
function sharedModuleAliases(): Record<string, string> {
  if (!aliases) {
    const resolve = (id: string) => fileURLToPath(import.meta.resolve(id));
    aliases = {};
    for (const id of ["typebox", "typebox/value", "typebox/compile"]) {
      try {
        aliases[id] = resolve(id);
      } catch {
        // Not installed beside us: an extension importing it fails to load with a clear message.
      }
    }
  }
  return aliases;
}

/** A file version: replacing (new inode), rewriting or touching the file all change it. */
function signatureOf(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/**
 * TypeScript and .mjs are modules. Plain JavaScript is a module only when it
 * uses import or export: CommonJS keeps the sloppy mode Node gives it.
 */
function transformOptions(filename: string, source: string): TransformOptions {
  const options: TransformOptions = { filename, source, ts: /\.[cm]?tsx?$/.test(filename), async: true };
  if (/\.c?js$/.test(filename)) options.babel = { sourceType: "unambiguous" };
  return options;
}

function defaultExport(loaded: unknown, filename: string): ExtensionFactory {
  const factory = typeof loaded === "function" ? loaded : (loaded as { default?: unknown } | undefined)?.default;
  if (typeof factory !== "function") throw new ExtensionLoadError("the module has no default export function", filename);
  return factory as ExtensionFactory;
}

/**
 * The process-wide cache behind extension loading. Reading and transforming
 * an extension's entry file happens once per file version; every lease still
 * evaluates the code anew, so no two threads share module state. Entries a
 * thread holds stay; at most `maxInactive` others are kept, least recently
 * used evicted first. Evicting forgets our copy of the code only: modules a
 * thread evaluated are freed by the runtime, if ever.
 */
export class ExtensionFactoryCache {
  /** Current versions some thread holds or is loading. */
  private readonly held = new Map<string, Entry>();
  /** Current versions nobody holds, kept for the next load; none when `maxInactive` is 0. */
  private readonly inactive: LRUCache<string, Entry> | undefined;
  /** Superseded versions some thread still holds; dropped once released. */
  private readonly retired = new Set<Entry>();
  private loading: Promise<Loader> | undefined;
  /** The entry being evaluated, whose transformed code the evaluator asks for synchronously. */
  private serving: { filename: string; compiled: Compiled } | undefined;
  private transformCount = 0;
  private notified = "";

  constructor(private readonly options: ExtensionFactoryCacheOptions = {}) {
    const max = options.maxInactive ?? DEFAULT_MAX_INACTIVE;
    if (!Number.isInteger(max) || max < 0) throw new RangeError(`maxInactive must be a whole number of at least 0, not ${max}`);
    this.inactive = max === 0 ? undefined : new LRUCache<string, Entry>({ max });
  }

  get inactiveCount(): number {
    return this.inactive?.size ?? 0;
  }

  get leasedCount(): number {
    return this.held.size + this.retired.size;
  }

  counts(): FactoryCacheCounts {
    return { inactive: this.inactiveCount, leased: this.leasedCount };
  }

  /** How many sources jiti has transformed for this cache: entry files and the files they import. */
  get transforms(): number {
    return this.transformCount;
  }

  /**
   * Evaluates the extension at `path` (a file, or a folder with an index
   * file) into a fresh module and holds its entry until released. A failed
   * load holds nothing and caches nothing the next load could reuse.
   */
  async lease(path: string): Promise<FactoryLease> {
    const { compiler } = await this.loader();
    const resolved = compiler.esmResolve(path);
    const filename = resolved.startsWith("file:") ? fileURLToPath(resolved) : resolved;
    const entry = this.entryFor(filename, signatureOf(await stat(filename)));
    entry.holds++;
    this.notify();
    let factory: ExtensionFactory;
    try {
      const compiled = await entry.compiled;
      // Written to between our stat and our read: use it this once, but never serve it as the version we stat'ed.
      if (compiled.signature !== entry.signature && this.current(filename) === entry) this.retire(entry);
      factory = await this.evaluate(entry, compiled);
    } catch (error) {
      this.letGo(entry, true);
      throw error;
    }
    entry.succeeded = true;
    let released = false;
    return {
      factory,
      filename,
      release: () => {
        if (released) return;
        released = true;
        this.letGo(entry, false);
      },
    };
  }

  private current(filename: string): Entry | undefined {
    return this.held.get(filename) ?? this.inactive?.peek(filename);
  }

  /** The file's current entry for this version, counted as held from now on. */
  private entryFor(filename: string, signature: string): Entry {
    const current = this.current(filename);
    if (current?.signature === signature) {
      this.inactive?.delete(filename);
      this.held.set(filename, current);
      return current;
    }
    if (current) this.retire(current);
    const entry: Entry = { filename, signature, compiled: this.compile(filename), holds: 0, succeeded: false };
    this.held.set(filename, entry);
    return entry;
  }

  private async compile(filename: string): Promise<Compiled> {
    const { compiler } = await this.loader();
    const { handle: file } = await openRegularFile(filename);
    let source: string;
    let signature: string;
    try {
      source = await file.readFile("utf8");
      signature = signatureOf(await file.stat());
    } finally {
      await file.close();
    }
    this.transformCount++;
    return { source, code: compiler.transform(transformOptions(filename, source)), signature };
  }

  private async evaluate(entry: Entry, compiled: Compiled): Promise<ExtensionFactory> {
    const { evaluator } = await this.loader();
    let evaluation: unknown;
    this.serving = { filename: entry.filename, compiled };
    try {
      // Transpiling always, even native ESM or CommonJS: Node's own loader would hand every thread the same instance.
      evaluation = evaluator.evalModule(compiled.source, {
        id: entry.filename,
        filename: entry.filename,
        ext: extname(entry.filename),
        async: true,
        forceTranspile: true,
      });
    } finally {
      this.serving = undefined;
    }
    return defaultExport(await evaluation, entry.filename);
  }

  /** The evaluator's transform: the entry's cached code, else jiti's transform for what the entry imports. */
  private transform(compiler: Jiti, options: TransformOptions): TransformResult {
    const serving = this.serving;
    if (serving && options.filename === serving.filename && options.source === serving.compiled.source) {
      return { code: serving.compiled.code };
    }
    this.transformCount++;
    return { code: compiler.transform(options) };
  }

  private loader(): Promise<Loader> {
    this.loading ??= Promise.all([import("jiti"), this.diskCacheFolder()]).then(
      ([{ createJiti }, fsCache]) => {
        // No module cache: each evaluation imports its own copies of the extension's files.
        const base = { moduleCache: false, interopDefault: true, alias: sharedModuleAliases() };
        // Never jiti's shared folder in the system's temporary folder: any local user can write
        // there, and whatever is found there runs in the server.
        const compiler = createJiti(import.meta.url, { ...base, fsCache: fsCache ?? false });
        const evaluator = createJiti(import.meta.url, {
          ...base,
          fsCache: false,
          transform: (options: TransformOptions) => this.transform(compiler, options),
        });
        return { compiler, evaluator };
      },
      (error: unknown) => {
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }

  /** The disk cache's folder once it is private, or undefined: then jiti keeps nothing on disk. */
  private async diskCacheFolder(): Promise<string | undefined> {
    const folder = this.options.diskCache;
    if (folder === undefined) return undefined;
    const warn = (message: string): void => {
      try {
        this.options.onWarning?.(message);
      } catch {
        // A listener must not break loading.
      }
    };
    try {
      return await privateFolder(folder, warn);
    } catch (error) {
      warn(`the extension compile cache ${folder} cannot be prepared (${(error as Error).message}); extensions are compiled without a disk cache`);
      return undefined;
    }
  }

  /** A newer version exists: the old one goes as soon as nobody holds it. */
  private retire(entry: Entry): void {
    if (this.held.get(entry.filename) === entry) this.held.delete(entry.filename);
    if (this.inactive?.peek(entry.filename) === entry) this.inactive.delete(entry.filename);
    if (entry.holds > 0) this.retired.add(entry);
  }

  private letGo(entry: Entry, failed: boolean): void {
    entry.holds--;
    if (entry.holds === 0) {
      if (this.retired.delete(entry)) {
        // Superseded while held: nothing to keep.
      } else if (this.held.get(entry.filename) === entry) {
        this.held.delete(entry.filename);
        // Only code that once produced a factory is worth keeping; the least recently released goes first.
        if (!failed || entry.succeeded) this.inactive?.set(entry.filename, entry);
      }
    }
    this.notify();
  }

  private notify(): void {
    const onChange = this.options.onChange;
    if (!onChange) return;
    const counts = this.counts();
    const key = `${counts.inactive}:${counts.leased}`;
    if (key === this.notified) return;
    this.notified = key;
    try {
      onChange(counts);
    } catch {
      // A diagnostics listener must not break loading.
    }
  }
}
