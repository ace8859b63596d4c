// Run as a child process by the session tests.
//   hold <path>                 own the transcript, print "held", wait to be killed
//   append <path> <seed>        append entries forever; every 4th is durable and then
//                               printed as "synced <n>"; wait to be killed
//   fill <path> <bytes>         append entries of about <bytes> until one fails, then
//                               one more; print {appended, codes, sizes} as JSON
import { statSync } from "node:fs";
import { SessionFile } from "../../src/session/session-file.js";
import { SessionFileError } from "../../src/session/errors.js";
import { mulberry32, userText } from "./helpers.js";

const [mode, path, arg] = process.argv.slice(2);

async function hold(): Promise<void> {
  await SessionFile.open(path!);
  process.stdout.write("held\n");
  setInterval(() => undefined, 1000);
}

async function appendForever(): Promise<void> {
  const random = mulberry32(Number(arg));
  const file = await SessionFile.open(path!);
  for (let n = 0; ; n++) {
    // Mixed sizes, some large, so a kill can land in the middle of a write.
    const size = random() < 0.1 ? 200_000 + Math.floor(random() * 300_000) : Math.floor(random() * 4000);
    const durable = n % 4 === 3;
    file.append({ type: "message", message: userText(`entry ${n} ${"x".repeat(size)}`) }, { durable });
    if (durable) process.stdout.write(`synced ${n}\n`);
  }
}

async function fill(): Promise<void> {
  const file = await SessionFile.open(path!);
  const result = { appended: 0, codes: [] as string[], sizes: [] as number[] };
  while (result.codes.length < 2) {
    try {
      file.append({ type: "message", message: userText("y".repeat(Number(arg))) });
      result.appended++;
    } catch (error) {
      result.codes.push(error instanceof SessionFileError ? error.code : String(error));
      result.sizes.push(statSync(path!).size);
    }
  }
  file.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

const modes: Record<string, () => Promise<void>> = { hold, append: appendForever, fill };
const run = modes[mode ?? ""];
if (run === undefined) {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
run().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
