// Paging history: list the threads of a folder, then read one thread's saved
// turns page by page (newest page first) without loading it, resolving any
// value too large to travel inline.
//   node examples/history.mjs [folder]
import { AppServerClient } from "@knightcode/app-server-client";

const cwd = process.argv[2] ?? process.cwd();

const client = AppServerClient.spawn({ command: "knightcode", args: ["app-server"], stderr: "ignore", requestTimeoutMs: 30_000 });
try {
  await client.initialize({ clientInfo: { name: "history", version: "1.0" } });
  const threads = [];
  /** @type {string | undefined} */
  let cursor;
  do {
    const page = await client.request("thread/list", { cwd, limit: 20, ...(cursor ? { cursor } : {}) });
    threads.push(...page.threads);
    cursor = page.nextCursor;
  } while (cursor);
  console.log(`${threads.length} thread(s) in ${cwd}`);

  for (const summary of threads) {
    let pages = 0;
    let turns = 0;
    /** @type {string | undefined} */
    let next;
    do {
      const page = await client.request("thread/read", { threadId: summary.id, ...(next ? { cursor: next } : {}) });
      pages++;
      for (const wireTurn of page.turns) {
        const turn = await client.resolveTurn(wireTurn);
        turns++;
        for (const item of turn.items ?? []) {
          if (item.type === "userMessage" || item.type === "agentMessage") console.log(`  ${item.type}: ${JSON.stringify(item.text)}`);
        }
      }
      next = page.nextCursor;
    } while (next);
    console.log(`thread ${summary.id}: ${turns} turn(s) in ${pages} page(s)`);
  }
} finally {
  await client.close();
}
