import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { readRegularFileSync } from "@knightcode/system/fs/regular-file";

export const CONTEXT_FILE_NAMES = ["AGENTS.md", "CLAUDE.md"];
const MAX_CONTEXT_FILE_BYTES = 64 * 1024;

export interface ContextFile {
  path: string;
  content: string;
  truncated: boolean;
}

function readContextFile(dir: string): ContextFile | undefined {
  for (const name of CONTEXT_FILE_NAMES) {
    const path = join(dir, name);
    try {
      // Not past the part that is used; a folder, a FIFO or a device of that name is passed over.
      const raw = readRegularFileSync(path, MAX_CONTEXT_FILE_BYTES);
      const truncated = raw.length > MAX_CONTEXT_FILE_BYTES;
      return { path, content: raw.subarray(0, MAX_CONTEXT_FILE_BYTES).toString("utf8"), truncated };
    } catch {}
  }
  return undefined;
}

/**
 * The instruction files that apply to a working directory: the agent dir's
 * own, then those of every folder from the filesystem root (or the home
 * directory) down to the cwd, so the most specific comes last. One file per
 * folder: AGENTS.md, else CLAUDE.md.
 */
export function collectContextFiles(cwd: string, agentDir: string): ContextFile[] {
  const files: ContextFile[] = [];
  const global = readContextFile(agentDir);
  if (global) files.push(global);
  const chain: string[] = [];
  const home = homedir();
  let dir = resolve(cwd);
  for (;;) {
    chain.push(dir);
    const parent = dirname(dir);
    if (parent === dir || dir === home) break;
    dir = parent;
  }
  for (const folder of chain.reverse()) {
    const file = readContextFile(folder);
    if (file && !files.some((f) => f.path === file.path)) files.push(file);
  }
  return files;
}

export interface SystemPromptOptions {
  cwd: string;
  agentDir: string;
  tools: { name: string; description: string }[];
  /** Extra sections (skills, extension additions) appended verbatim. */
  appendix?: string[];
  now?: Date;
}

const BASE = `You are KnightCode, a coding agent working in the user's project through the tools below.
Work the way a careful senior engineer would:
- Read before you change: look at the code, the tests and the conventions in use, and follow them.
- Make the smallest change that solves the problem completely; do not rewrite what you were not asked to touch.
- Prefer the edit tool for changes to existing files and write for new files; never paste whole files back without need.
- Run the project's own checks (build, tests, linters) when you change code, and report what they said.
- When something fails, read the error and fix the cause; do not paper over it.
- Ask the user (ask_user, when available) only when you cannot proceed without a decision that is theirs.
- Be concise in replies: say what you did, what you found and what is left. Refer to files by their paths.`;

/** The system prompt of a thread: our instructions, the tools, the project's instruction files, the date and the cwd. */
export function buildSystemPrompt(options: SystemPromptOptions): string {
  const sections = [BASE];
  if (options.tools.length > 0) {
    sections.push(`Available tools:\n${options.tools.map((t) => `- ${t.name}: ${t.description.split("\n")[0]}`).join("\n")}`);
  }
  for (const file of collectContextFiles(options.cwd, options.agentDir)) {
    const note = file.truncated ? "\n[file cut at 64 KiB]" : "";
    sections.push(`Instructions from ${file.path}:\n<instructions>\n${file.content.trim()}${note}\n</instructions>`);
  }
  sections.push(...(options.appendix ?? []));
  const now = options.now ?? new Date();
  sections.push(`Current date: ${now.toISOString().slice(0, 10)}\nWorking directory: ${options.cwd}`);
  return sections.join("\n\n");
}

export function hasContextFile(dir: string): boolean {
  return CONTEXT_FILE_NAMES.some((name) => existsSync(join(dir, name)));
}
