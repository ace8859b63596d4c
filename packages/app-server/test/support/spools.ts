import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The pid of a process that has ended and been reaped: no process has it now. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

/** A spool folder as a server of `pid` makes it, holding one read-only payload file. */
export function fakeSpool(root: string, pid: number): string {
  const folder = mkdtempSync(join(root, `knightcode-spool-${pid}-`));
  writeFileSync(join(folder, "0".repeat(32)), "payload", { mode: 0o400 });
  return folder;
}
