/**
 * The stdio MCP servers this process has running. Threads close theirs when
 * they unload, gently (input closed, then signals); this is the last word
 * for an exit that comes before that finished, such as the server's hard
 * exit at the end of shutdown: whatever is still here is killed as the
 * process exits.
 */
const live = new Set<number>();
let hooked = false;

function killAll(): void {
  for (const pid of live) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  live.clear();
}

export function rememberChild(pid: number): void {
  live.add(pid);
  if (!hooked) {
    hooked = true;
    process.once("exit", killAll);
  }
}

export function forgetChild(pid: number): void {
  live.delete(pid);
}
