import { mkdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { checker } from "@knightcode/schema/problems";
import { TRUST_FILE_VERSION, TrustDecisionEntry, TrustFileShape } from "@knightcode/schema/trust-file";
import { writeFileAtomic } from "@knightcode/system/fs/atomic-write";
import { LockHeldError } from "@knightcode/system/fs/file-lock";
import { withFileLock } from "@knightcode/system/fs/file-queue";
import { editJsonText } from "@knightcode/system/fs/json-edit";
import { readJsonFile, resolveWriteTarget } from "@knightcode/system/fs/json-file";
import { isPlainObject, type SettingsObject, setOwn } from "../settings/keys.js";
import type { TrustDecision, TrustLookup } from "../settings/scope.js";
import type { Warning } from "@knightcode/system/warning";
import { TrustError } from "./errors.js";
import { needsTrust, type ProjectResource } from "./resources.js";

export const TRUST_FILE = "trust.json";
const STORE_VERSION = TRUST_FILE_VERSION;
const fileShape = checker(TrustFileShape);
const decisionEntry = checker(TrustDecisionEntry);

export interface TrustState {
  trusted: TrustDecision;
  /** The project has resources in `.knightcode/` that wait for a decision. */
  needsTrust: boolean;
  found: ProjectResource[];
  /** The folder whose decision applies: the project's own or its nearest decided ancestor. */
  decidedBy?: string;
  /** A damaged trust store, reported and read as undecided. */
  warnings: Warning[];
}

interface LoadedStore {
  corrupt: boolean;
  doc: SettingsObject;
  /** The file's text, which a write edits to keep the user's formatting. */
  text?: string;
  decisions: Map<string, boolean>;
  warnings: Warning[];
}

function damaged(path: string, why: string, position: { line?: number; column?: number } = {}): LoadedStore {
  const warning: Warning = { message: `${path} ${why}; every project counts as undecided until it is fixed`, source: "trust", path, ...position };
  return { corrupt: true, doc: {}, decisions: new Map(), warnings: [warning] };
}

/** Reads trust.json; damage is reported, never thrown, so that reads degrade to undecided. */
function loadStore(path: string): LoadedStore {
  let file;
  try {
    file = readJsonFile(path);
  } catch (error) {
    throw new TrustError("io", `cannot read ${path}: ${(error as Error).message}`, { path }, { cause: error });
  }
  if (file.syntax !== undefined) {
    const { message, line, column } = file.syntax;
    return damaged(path, `is not valid JSON: ${message}`, line === undefined ? {} : { line, column });
  }
  const doc = file.value ?? { version: STORE_VERSION, projects: {} };
  const shape = fileShape.read(doc);
  if (!shape.ok) return damaged(path, shape.problem);
  const decisions = new Map<string, boolean>();
  const warnings: Warning[] = [];
  for (const [folder, entry] of Object.entries(shape.value.projects ?? {})) {
    if (decisionEntry.check(entry)) decisions.set(folder, entry.trusted);
    else warnings.push({ message: `${path}: the decision for ${folder} is malformed and counts as undecided`, source: "trust", path });
  }
  return { corrupt: false, doc: doc as SettingsObject, ...(file.text === undefined ? {} : { text: file.text }), decisions, warnings };
}

/** The decision of `folder` or of its nearest ancestor that has one. */
function lookup(decisions: ReadonlyMap<string, boolean>, folder: string): { trusted: TrustDecision; decidedBy?: string } {
  for (let dir = folder; ; dir = dirname(dir)) {
    const trusted = decisions.get(dir);
    if (trusted !== undefined) return { trusted, decidedBy: dir };
    if (dirname(dir) === dir) return { trusted: null };
  }
}

/** The real path of an existing directory, the key decisions are stored under. */
function realDirectory(cwd: string): string {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR")
      throw new TrustError("io", `cannot inspect ${cwd}: ${(error as Error).message}`, { path: cwd }, { cause: error });
    isDirectory = false;
  }
  if (!isDirectory) throw new TrustError("notADirectory", `${cwd} is not an existing directory`, { path: cwd });
  return realpathSync(cwd);
}

/**
 * Project trust decisions, kept in `<agentDir>/trust.json` by the server (not
 * by a client). Nothing is cached: each call reads the file, so a decision
 * made by another process counts at once.
 */
export class TrustStore implements TrustLookup {
  readonly path: string;

  constructor(agentDir: string) {
    this.path = join(resolve(agentDir), TRUST_FILE);
  }

  /** The decision for a project folder, whether it needs one, and what it holds. */
  read(cwd: string): TrustState {
    const folder = realDirectory(cwd);
    const store = loadStore(this.path);
    const decision = lookup(store.decisions, folder);
    return { ...decision, ...needsTrust(folder), warnings: store.warnings };
  }

  /** Just the decision; a folder that does not exist is looked up by its absolute path. */
  decisionFor(cwd: string): TrustDecision {
    let folder: string;
    try {
      folder = realpathSync(cwd);
    } catch {
      folder = resolve(cwd);
    }
    return lookup(loadStore(this.path).decisions, folder).trusted;
  }

  /** Records a decision for the folder itself (its real path); null forgets it. */
  async set(cwd: string, trusted: boolean | null, options: { signal?: AbortSignal } = {}): Promise<void> {
    const folder = realDirectory(cwd);
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      const path = resolveWriteTarget(this.path);
      await withFileLock(path, { purpose: "trust", signal: options.signal }, () => this.record(path, folder, trusted));
    } catch (error) {
      const fromSystem = error instanceof LockHeldError || typeof (error as NodeJS.ErrnoException | undefined)?.syscall === "string";
      if (!fromSystem) throw error;
      throw new TrustError("io", `cannot write ${this.path}: ${(error as Error).message}`, { path: this.path }, { cause: error });
    }
  }

  private record(path: string, folder: string, trusted: boolean | null): void {
    const store = loadStore(path);
    if (store.corrupt) {
      throw new TrustError("corrupt", `${path} is not a valid trust store; fix or remove it by hand, it is never overwritten`, { path });
    }
    const doc = store.doc;
    const before: unknown = JSON.parse(JSON.stringify(doc));
    if (!Object.hasOwn(doc, "version")) setOwn(doc, "version", STORE_VERSION);
    if (!isPlainObject(doc.projects)) setOwn(doc, "projects", {});
    const projects = doc.projects as SettingsObject;
    if (trusted === null) delete projects[folder];
    else setOwn(projects, folder, { trusted, decidedAt: new Date().toISOString() });
    writeFileAtomic(path, editJsonText(store.text, before, doc), { durable: true, mode: 0o600 });
  }
}
