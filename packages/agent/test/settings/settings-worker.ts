// Run as a child process by concurrency.test.ts.
//   write <agentDir> <prefix> <n>   n writes of distinct keys and n read-modify-write increments of
//                                   "counter", all started at once; prints "done"
//   flood <agentDir> <n>            n writes one after another; prints "started" after the first
//   poll <file>                     reads and parses the file until stdin closes; prints {reads, torn}
import { readFileSync } from "node:fs";
import { updateSettings, writeSetting } from "../../src/settings/write.js";

const [mode, target, prefix, n] = process.argv.slice(2);

async function write(agentDir: string): Promise<void> {
  const edits: Array<Promise<unknown>> = [];
  for (let i = 0; i < Number(n); i++) {
    edits.push(writeSetting({ agentDir, scope: "global", key: `${prefix}.k${i}`, value: i }));
    edits.push(updateSettings({ agentDir, scope: "global" }, (s) => void (s.counter = ((s.counter as number | undefined) ?? 0) + 1)));
  }
  await Promise.all(edits);
  process.stdout.write("done\n");
}

async function flood(agentDir: string): Promise<void> {
  for (let i = 0; i < Number(prefix); i++) {
    await writeSetting({ agentDir, scope: "global", key: `flood.k${i % 50}`, value: "x".repeat(i % 2000) });
    if (i === 0) process.stdout.write("started\n");
  }
}

function poll(file: string): void {
  let reads = 0;
  const torn: string[] = [];
  let stop = false;
  process.stdin.on("end", () => (stop = true));
  process.stdin.resume();
  const tick = (): void => {
    if (stop) {
      process.stdout.write(JSON.stringify({ reads, torn }) + "\n");
      return;
    }
    let text: string | undefined;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      // Not created yet.
    }
    if (text !== undefined) {
      reads++;
      try {
        JSON.parse(text);
      } catch {
        torn.push(text);
      }
    }
    setImmediate(tick);
  };
  process.stdout.write("ready\n");
  tick();
}

if (mode === "poll") poll(target!);
else
  (mode === "flood" ? flood(target!) : write(target!)).catch((error: unknown) => {
    process.stderr.write(String(error instanceof Error ? error.stack : error));
    process.exit(1);
  });
