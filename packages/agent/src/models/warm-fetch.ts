import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const WARM_UP_TIMEOUT_MS = 5_000;

function answer(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  request.on("end", () => {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    response.write('event: ping\ndata: {"type":"ping"}\n\n');
    response.end('event: done\ndata: {"type":"done"}\n\n');
  });
}

/**
 * Makes one streamed request to a server of our own on 127.0.0.1 and reads
 * its answer, so that the first model request does not pay for what Node
 * does only once: loading `fetch` (undici), compiling its HTTP parser and
 * running its response path for the first time, which together put tens of
 * milliseconds between a model's first bytes and the first delta a client
 * sees. Nothing leaves the machine; where no loopback socket can be opened
 * the warm-up fails and the first request pays instead.
 */
export async function warmFetch(): Promise<void> {
  // Loaded here, not with the module: a host that never warms up never loads it.
  const { createServer } = await import("node:http");
  const server = createServer(answer);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/warm-up`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: "{}",
      signal: AbortSignal.timeout(WARM_UP_TIMEOUT_MS),
    });
    const reader = response.body?.getReader();
    if (reader) while (!(await reader.read()).done);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
