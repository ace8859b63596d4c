import type { Launched, LaunchEnd } from "./launch.js";

/** A launched program's output, each stream up to its cap. */
export interface Collected extends LaunchEnd {
  stdout: Buffer;
  stderr: Buffer;
  /** Which stream passed its cap: what came after was dropped (or the program stopped, see `stopPastCap`). */
  truncated: { stdout: boolean; stderr: boolean };
}

export interface CollectOptions {
  /** Bytes kept of stdout. */
  maxStdout: number;
  /** Bytes kept of stderr; what programs say on failure is short. */
  maxStderr: number;
  /** Past the stdout cap the whole group is stopped (a reader that cannot use a cut answer); otherwise the rest is dropped. */
  stopPastCap?: boolean;
  /** Takes stdout as it arrives (within the cap) instead of collecting it: the answer's stdout is then empty. */
  onStdout?: (chunk: Buffer) => void;
}

/**
 * Collects a launched program's stdout and stderr up to their caps, as
 * bytes: the one place where a child's output is bounded for callers that
 * want it whole (extensions' exec, git, gh). Resolves when the run ends.
 */
export async function collectOutput(run: Launched, options: CollectOptions): Promise<Collected> {
  const sink = (max: number, onFull?: () => void, take?: (chunk: Buffer) => void) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let truncated = false;
    return {
      get truncated(): boolean {
        return truncated;
      },
      push(chunk: Buffer): void {
        const room = max - bytes;
        if (chunk.length > room) {
          truncated = true;
          onFull?.();
        }
        if (room <= 0) return;
        const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
        bytes += kept.length;
        if (take) take(kept);
        else chunks.push(kept);
      },
      bytes: () => (take ? Buffer.alloc(0) : Buffer.concat(chunks, bytes)),
    };
  };
  const out = sink(options.maxStdout, options.stopPastCap ? () => run.stop(0) : undefined, options.onStdout);
  const err = sink(options.maxStderr);
  run.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  run.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  const end = await run.done;
  return { ...end, stdout: out.bytes(), stderr: err.bytes(), truncated: { stdout: out.truncated, stderr: err.truncated } };
}
