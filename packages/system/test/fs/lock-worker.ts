// Run as a child process by file-lock.test.ts.
//   hold <lock>                      take the lock, print "held", wait to be killed
//   count <lock> <counter> <n> <p>   n times: take the lock, read-sleep-write the counter, log it, release;
//                                    with probability p, exit while holding the lock instead
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { FileLock, LockHeldError } from "../../src/fs/file-lock.js";

const [mode, lockPath, counter, n, crash] = process.argv.slice(2);

async function main(): Promise<void> {
  if (mode === "hold") {
    FileLock.acquire(lockPath!, "test");
    process.stdout.write("held\n");
    setInterval(() => undefined, 1000);
    return;
  }
  for (let i = 0; i < Number(n); i++) {
    let lock: FileLock;
    try {
      lock = await FileLock.acquireWithin(lockPath!, 30_000, "test");
    } catch (error) {
      if (error instanceof LockHeldError) process.exit(3);
      throw error;
    }
    const value = Number(readFileSync(counter!, "utf8"));
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
    writeFileSync(counter!, String(value + 1));
    appendFileSync(`${counter}.log`, "+\n");
    if (Math.random() < Number(crash)) process.exit(0);
    lock.release();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(String(error));
  process.exit(1);
});
