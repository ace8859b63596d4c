import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "@knightcode/system/fs/atomic-write";
import { parseJsonText } from "@knightcode/system/fs/json-text";
import { LockHeldError } from "@knightcode/system/fs/file-lock";
import { withFileLock } from "@knightcode/system/fs/file-queue";

export interface ApiKeyCredential {
  type: "api_key";
  key: string;
}

export interface OAuthCredential {
  type: "oauth";
  refresh: string;
  access: string;
  expires: number;
  [extra: string]: unknown;
}

export type Credential = ApiKeyCredential | OAuthCredential;

export interface AuthFileProblem {
  message: string;
  path: string;
  /** Where the JSON breaks, one-based, when it does not parse. */
  line?: number;
  column?: number;
}

/**
 * Why auth.json could not be used: `corrupt` when it does not hold a JSON
 * object, `io` when it could not be read, locked or written. The message
 * names the file and never quotes it: it holds secrets.
 */
export class AuthFileError extends Error {
  override readonly name = "AuthFileError";
  constructor(
    readonly code: "corrupt" | "io",
    message: string,
    readonly path: string,
    readonly position?: { line: number; column: number },
  ) {
    super(message);
  }
}

type Entries = Record<string, unknown>;

function isCredential(value: unknown): value is Credential {
  const credential = value as Partial<Credential> | null;
  if (credential === null || typeof credential !== "object") return false;
  if (credential.type === "api_key") return typeof credential.key === "string";
  return credential.type === "oauth" && typeof (credential as OAuthCredential).access === "string";
}

/**
 * Provider credentials in `<agentDir>/auth.json`, written 0600 and
 * atomically under a cross-process lock. A file that does not parse is
 * reported and never overwritten; entries this store does not understand
 * are kept as they are.
 */
export class AuthStore {
  readonly path: string;

  constructor(agentDir: string) {
    this.path = join(agentDir, "auth.json");
  }

  /**
   * The file's entries by provider, in a prototype-less object so that a
   * provider named `__proto__` is a key like any other. Parser messages are
   * left out of the error: they quote the text around the fault.
   */
  private readEntries(): Entries {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return Object.create(null) as Entries;
      throw new AuthFileError("io", `cannot read ${this.path} (${(error as NodeJS.ErrnoException).code ?? "error"})`, this.path);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      const where = parseJsonText(text);
      const position =
        !where.ok && where.error.line !== undefined && where.error.column !== undefined ? { line: where.error.line, column: where.error.column } : undefined;
      const at = position ? ` (line ${position.line}, column ${position.column})` : "";
      throw new AuthFileError("corrupt", `${this.path} is not valid JSON${at}`, this.path, position);
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new AuthFileError("corrupt", `${this.path} is not valid: it must hold a JSON object`, this.path);
    }
    return Object.assign(Object.create(null) as Entries, parsed);
  }

  /**
   * Every credential, or a problem when the file exists but cannot be used.
   * `ignored` names the entries that are not credentials this store knows
   * (they are kept in the file, and never quoted: they may hold secrets).
   */
  readAll(): { credentials: Record<string, Credential>; problem?: AuthFileProblem; ignored: string[] } {
    const credentials = Object.create(null) as Record<string, Credential>;
    let entries: Entries;
    try {
      entries = this.readEntries();
    } catch (error) {
      if (!(error instanceof AuthFileError)) throw error;
      return { credentials, problem: { path: this.path, message: error.message, ...error.position }, ignored: [] };
    }
    const ignored: string[] = [];
    for (const [provider, value] of Object.entries(entries)) {
      if (isCredential(value)) credentials[provider] = value;
      else ignored.push(provider);
    }
    return { credentials, ignored };
  }

  get(provider: string): Credential | undefined {
    const { credentials } = this.readAll();
    return Object.hasOwn(credentials, provider) ? credentials[provider] : undefined;
  }

  /**
   * Sets or (with undefined) removes one provider's entry, and says whether
   * the file held one before. Throws an AuthFileError when the file cannot
   * be used; it is then left as it was.
   */
  async set(provider: string, credential: Credential | undefined): Promise<{ existed: boolean }> {
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new AuthFileError("io", `cannot create the folder of ${this.path} (${(error as NodeJS.ErrnoException).code ?? "error"})`, this.path);
    }
    try {
      // The per-file queue first (writers in this process take turns), then the lock other processes honour.
      return await withFileLock(this.path, { purpose: "auth" }, () => this.setLocked(provider, credential));
    } catch (error) {
      if (error instanceof LockHeldError) throw new AuthFileError("io", `cannot lock ${this.path}: ${error.message}`, this.path);
      throw error;
    }
  }

  private setLocked(provider: string, credential: Credential | undefined): { existed: boolean } {
    const entries = this.readEntries();
    const existed = Object.hasOwn(entries, provider);
    if (credential === undefined) {
      if (!existed) return { existed };
      delete entries[provider];
    } else {
      entries[provider] = credential;
    }
    try {
      writeFileAtomic(this.path, JSON.stringify(entries, null, 2) + "\n", { mode: 0o600, keepExistingMode: false, durable: true });
    } catch (error) {
      throw new AuthFileError("io", `cannot write ${this.path} (${(error as NodeJS.ErrnoException).code ?? "error"})`, this.path);
    }
    return { existed };
  }
}
