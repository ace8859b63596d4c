import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after } from "node:test";
import { sha256Hex } from "@knightcode/system/fs/json-file";

/** A fresh temp folder per test file, removed when the file's tests end. */
export function tempRoot(name: string): () => string {
  const root = mkdtempSync(join(tmpdir(), `kc-${name}-`));
  after(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  return () => {
    const dir = join(root, String(n++));
    mkdirSync(dir, { recursive: true });
    return dir;
  };
}

/** An agent dir and a project folder side by side. */
export function layout(fresh: () => string): { agentDir: string; cwd: string; globalFile: string; projectFile: string } {
  const base = fresh();
  const agentDir = join(base, "agent");
  const cwd = join(base, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  return { agentDir, cwd, globalFile: join(agentDir, "settings.json"), projectFile: join(cwd, ".knightcode", "settings.json") };
}

export function put(path: string, content: string | object): string {
  mkdirSync(dirname(path), { recursive: true });
  const text = typeof content === "string" ? content : JSON.stringify(content, null, 2) + "\n";
  writeFileSync(path, text);
  return sha256Hex(text);
}
