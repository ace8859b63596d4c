import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { FileLock } from "../fs/file-lock.js";

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
}

/**
 * Provider credentials in `<agentDir>/auth.json`, written 0600 and
 * atomically under a cross-process lock. A file that does not parse is
 * reported and never overwritten.
 */
export class AuthStore {
  readonly path: string;

  constructor(agentDir: string) {
    this.path = join(agentDir, "auth.json");
  }

  /** Every credential, or a problem when the file exists but cannot be used. */
  readAll(): { credentials: Record<string, Credential>; problem?: AuthFileProblem } {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { credentials: {} };
      return { credentials: {}, problem: { path: this.path, message: `cannot read ${this.path}: ${(error as Error).message}` } };
    }
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not a JSON object");
      const credentials: Record<string, Credential> = {};
      for (const [provider, value] of Object.entries(parsed as Record<string, unknown>)) {
        const credential = value as Partial<Credential> | null;
        if (credential?.type === "api_key" && typeof credential.key === "string") credentials[provider] = credential as ApiKeyCredential;
        else if (credential?.type === "oauth" && typeof (credential as OAuthCredential).access === "string") credentials[provider] = credential as OAuthCredential;
      }
      return { credentials };
    } catch (error) {
      return { credentials: {}, problem: { path: this.path, message: `${this.path} is not valid: ${(error as Error).message}` } };
    }
  }

  get(provider: string): Credential | undefined {
    return this.readAll().credentials[provider];
  }

  /** Sets or (with undefined) removes one provider's credential. */
  async set(provider: string, credential: Credential | undefined): Promise<void> {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const lock = await FileLock.acquireWithin(`${this.path}.lock`, 10_000, "auth");
    try {
      const { credentials, problem } = this.readAll();
      if (problem) throw new Error(`${problem.message}; fix or remove it before signing in`);
      if (credential === undefined) delete credentials[provider];
      else credentials[provider] = credential;
      writeFileAtomic(this.path, JSON.stringify(credentials, null, 2) + "\n", { mode: 0o600, keepExistingMode: false, durable: true });
    } finally {
      lock.release();
    }
  }
}
