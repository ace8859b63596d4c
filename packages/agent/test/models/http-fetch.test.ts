import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer as createSecureServer } from "node:https";
import { getEventListeners } from "node:events";
import { gzipSync, brotliCompressSync } from "node:zlib";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { waitUntil } from "@knightcode/testkit";
import { isFormData, modelFetch } from "../../src/models/http-fetch.js";
import { HeaderFields } from "../../src/models/http-headers.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  socket: Socket;
}

/** A server on 127.0.0.1 answering with `handle`, keeping what each request brought. */
async function serve(
  handle: (request: Seen, response: ServerResponse) => void,
): Promise<{ origin: string; seen: Seen[]; sockets: Set<Socket>; server: Server }> {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const entry = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
        socket: request.socket,
      };
      seen.push(entry);
      handle(entry, response);
    });
  });
  server.on("connection", (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, sockets, server };
}

const servers: Server[] = [];
after(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

const text =
  (body: string, headers: Record<string, string> = {}) =>
  (_: Seen, response: ServerResponse) => {
    response.writeHead(200, { "content-type": "text/plain", ...headers });
    response.end(body);
  };

describe("modelFetch", () => {
  test("sends the method, headers and body it is given, and answers as fetch does", async () => {
    const { origin, seen } = await serve((_, response) => {
      response.writeHead(201, "Made", [
        ["X-One", "a"],
        ["x-one", "b"],
        ["Set-Cookie", "c=1"],
        ["Set-Cookie", "d=2"],
        ["content-type", "application/json"],
      ]);
      response.end('{"ok":true}');
    });
    const sdkHeaders = new HeaderFields([
      ["Authorization", "Bearer k"],
      ["X-Two", "2"],
    ]);
    const response = await modelFetch(`${origin}/v1/responses?q=1`, { method: "post", headers: sdkHeaders as unknown as Headers, body: '{"model":"m"}' });
    assert.equal(response.status, 201);
    assert.equal(response.statusText, "Made");
    assert.equal(response.ok, true);
    assert.equal(response.url, `${origin}/v1/responses?q=1`);
    assert.equal(response.redirected, false);
    assert.equal(response.headers.get("X-ONE"), "a, b");
    assert.deepEqual(response.headers.getSetCookie(), ["c=1", "d=2"]);
    const names = [...response.headers.keys()];
    assert.deepEqual(names, [...names].sort(), "in name order");
    assert.ok(["content-type", "set-cookie", "x-one"].every((name) => names.includes(name)));
    assert.deepEqual(await response.json(), { ok: true });
    assert.equal(response.bodyUsed, true);
    await assert.rejects(response.text(), /already been read/);
    const [request] = seen;
    assert.ok(request);
    assert.equal(request.method, "POST");
    assert.equal(request.url, "/v1/responses?q=1");
    assert.equal(request.headers.authorization, "Bearer k");
    assert.equal(request.headers["x-two"], "2");
    assert.equal(request.headers.accept, "*/*");
    assert.equal(request.headers["content-length"], String(Buffer.byteLength('{"model":"m"}')));
    assert.equal(request.body, '{"model":"m"}');

    await modelFetch(origin, { method: "POST", headers: [["x-pair", "p"]], body: new TextEncoder().encode("bytes é") });
    await modelFetch(new URL(origin), { headers: { "x-record": "r" } });
    assert.equal(seen[1]?.headers["x-pair"], "p");
    assert.equal(seen[1]?.body, "bytes é");
    assert.equal(seen[2]?.method, "GET");
    assert.equal(seen[2]?.headers["x-record"], "r");
  });

  test("hands each piece of the body on as it arrives, to a reader or an async iteration", async () => {
    let write: ((piece: string) => void) | undefined;
    let end: (() => void) | undefined;
    const { origin } = await serve((_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.flushHeaders();
      write = (piece) => response.write(piece);
      end = () => response.end();
    });
    const response = await modelFetch(origin, { method: "POST", body: "{}" });
    assert.ok(response.body);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    await waitUntil("the server holding the stream", () => write);
    write?.("data: one\n\n");
    assert.equal(decoder.decode((await reader.read()).value), "data: one\n\n");
    write?.("data: two\n\n");
    assert.equal(decoder.decode((await reader.read()).value), "data: two\n\n");
    end?.();
    assert.equal((await reader.read()).done, true);

    const again = await modelFetch(origin, { method: "POST", body: "{}" });
    await waitUntil("the server holding the second stream", () => write);
    write?.("a");
    end?.();
    const pieces: string[] = [];
    for await (const chunk of again.body as unknown as AsyncIterable<Uint8Array>) pieces.push(decoder.decode(chunk));
    assert.equal(pieces.join(""), "a", "the body can be read as an async iterable too, as the SDKs read it");
  });

  test("answers with no body for HEAD, 204 and 304, and reads decoded gzip and brotli bodies", async () => {
    const { origin } = await serve((request, response) => {
      if (request.url === "/none") return void response.writeHead(204).end();
      if (request.url === "/gzip") return void response.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync("zipped"));
      if (request.url === "/br") return void response.writeHead(200, { "content-encoding": "br" }).end(brotliCompressSync("brotli"));
      text("plain")(request, response);
    });
    assert.equal((await modelFetch(`${origin}/none`)).body, null);
    assert.equal((await modelFetch(origin, { method: "HEAD" })).body, null);
    assert.equal(await (await modelFetch(`${origin}/gzip`)).text(), "zipped");
    assert.equal(await (await modelFetch(`${origin}/br`)).text(), "brotli");
  });

  test("follows redirects as fetch does: the body kept for 307, dropped for 303, credentials kept only within the origin", async () => {
    const other = await serve(text("elsewhere"));
    const { origin, seen } = await serve((request, response) => {
      const to: Record<string, string> = {
        "/307": "/landed",
        "/303": "/landed",
        "/away": `${other.origin}/landed`,
        "/loop": "/loop",
        "/ftp": "ftp://127.0.0.1/x",
      };
      const location = to[request.url];
      if (location === undefined) return text("landed")(request, response);
      response.writeHead(request.url === "/303" ? 303 : 307, { location });
      response.end();
    });
    const post = { method: "POST", headers: { authorization: "Bearer k", "content-type": "application/json" }, body: "{}" };

    const kept = await modelFetch(`${origin}/307`, post);
    assert.equal(await kept.text(), "landed");
    assert.equal(kept.redirected, true);
    assert.equal(kept.url, `${origin}/landed`);
    assert.deepEqual([seen[1]?.method, seen[1]?.body, seen[1]?.headers.authorization], ["POST", "{}", "Bearer k"]);

    await (await modelFetch(`${origin}/303`, post)).text();
    assert.deepEqual([seen[3]?.method, seen[3]?.body, seen[3]?.headers["content-type"]], ["GET", "", undefined]);

    assert.equal(await (await modelFetch(`${origin}/away`, post)).text(), "elsewhere");
    assert.equal(other.seen[0]?.headers.authorization, undefined, "no credentials to another origin");
    assert.equal(other.seen[0]?.body, "{}");

    await assert.rejects(
      modelFetch(`${origin}/loop`),
      (error: TypeError) => error.message === "fetch failed" && /redirect count exceeded/.test(String(error.cause)),
    );
    await assert.rejects(modelFetch(`${origin}/ftp`), (error: TypeError) => error.message === "fetch failed" && /ftp:/.test(String(error.cause)));
  });

  test("keeps a connection for the next request; one the server closed under a request fails it as fetch does, never sending it twice", async () => {
    let served = 0;
    const { origin, sockets, seen } = await serve((request, response) => {
      served++;
      // The third request finds its connection closed, as a server's idle timeout closes it just as a request is sent.
      if (served === 3) return void request.socket.destroy();
      text(`answer ${served}`)(request, response);
    });
    assert.equal(await (await modelFetch(origin, { method: "POST", body: "{}" })).text(), "answer 1");
    assert.equal(await (await modelFetch(origin, { method: "POST", body: "{}" })).text(), "answer 2");
    assert.equal(sockets.size, 1, "one connection for both");
    await assert.rejects(
      modelFetch(origin, { method: "POST", body: "{}" }),
      (error: TypeError) => error.message === "fetch failed" && (error.cause as NodeJS.ErrnoException).code === "ECONNRESET",
    );
    assert.equal(seen.length, 3, "the server may have taken it: it is not sent again");
    assert.equal(await (await modelFetch(origin, { method: "POST", body: "{}" })).text(), "answer 4");
    assert.equal(sockets.size, 2, "the next request goes on a new connection");
  });

  test("an abort stops the request before its answer, or its body, with the signal's reason; nothing stays listening", async () => {
    let hold: ServerResponse | undefined;
    const { origin, seen } = await serve((request, response) => {
      if (request.url === "/stream") {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write("data: first\n\n");
        hold = response;
        return;
      }
      hold = response;
    });
    const early = new AbortController();
    early.abort();
    await assert.rejects(modelFetch(origin, { signal: early.signal }), { name: "AbortError" });
    assert.equal(seen.length, 0, "an aborted signal sends nothing");

    const waiting = new AbortController();
    const pending = modelFetch(`${origin}/wait`, { method: "POST", body: "{}", signal: waiting.signal });
    await waitUntil("the request to reach the server", () => seen.length === 1);
    waiting.abort();
    await assert.rejects(pending, { name: "AbortError" });
    await waitUntil("the server to see the connection closed", () => hold?.socket?.destroyed === true || hold?.socket === null);
    assert.equal(getEventListeners(waiting.signal, "abort").length, 0);

    const reading = new AbortController();
    const response = await modelFetch(`${origin}/stream`, { signal: reading.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    assert.equal(new TextDecoder().decode((await reader.read()).value), "data: first\n\n");
    reading.abort(new Error("stopped by the user"));
    await assert.rejects(reader.read(), /stopped by the user/);
    assert.equal(getEventListeners(reading.signal, "abort").length, 0);

    const finished = new AbortController();
    const answered = modelFetch(`${origin}/wait`, { signal: finished.signal, method: "POST", body: "x" });
    await waitUntil("the last request to reach the server", () => seen.length === 3);
    hold?.end("done");
    assert.equal(await (await answered).text(), "done");
    assert.equal(getEventListeners(finished.signal, "abort").length, 0, "a body read to its end lets go of the signal");
  });

  test("network failures are fetch's TypeError with the cause; a body cut short errors as fetch's does, \"terminated\"", async () => {
    const closed = await serve(() => undefined);
    const port = (closed.server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.server.close(() => resolve()));
    await assert.rejects(
      modelFetch(`http://127.0.0.1:${port}/`),
      (error: TypeError) => error.message === "fetch failed" && (error.cause as NodeJS.ErrnoException).code === "ECONNREFUSED",
    );

    const { origin } = await serve((request, response) => {
      response.writeHead(200, { "content-length": "100" });
      response.write("partial");
      setImmediate(() => request.socket.destroy());
    });
    const response = await modelFetch(origin);
    await assert.rejects(
      response.text(),
      (error: TypeError) => error.message === "terminated" && /aborted|closed the connection/.test(String((error.cause as Error).message)),
    );
  });

  test("what it does not send itself goes to the global fetch unchanged", async () => {
    const { origin, seen } = await serve((request, response) => {
      if (request.url === "/go") return void response.writeHead(307, { location: "/landed" }).end();
      text("landed")(request, response);
    });
    const manual = await modelFetch(`${origin}/go`, { redirect: "manual" });
    assert.equal(manual.status, 307, "redirect: manual is fetch's");
    const form = new FormData();
    form.set("field", "value");
    assert.equal(isFormData(form), true);
    assert.equal(isFormData({ append() {} }), false);
    assert.equal((await modelFetch(`${origin}/form`, { method: "POST", body: form })).status, 200);
    assert.match(seen.at(-1)?.headers["content-type"] ?? "", /^multipart\/form-data/);
    assert.equal((await modelFetch(new Request(`${origin}/request`))).status, 200);
    assert.equal(seen.at(-1)?.url, "/request");
    const asked = seen.length;
    await assert.rejects(modelFetch(origin.replace("http://", "http://user:secret@")), /credentials/, "refused as fetch refuses it, never sent as Basic auth");
    assert.equal(seen.length, asked);
  });

  test("header fields read as fetch's Headers do, and are told from a record without the global Headers", () => {
    const fields = new HeaderFields([
      ["B", "2"],
      ["a", "1"],
    ]);
    fields.append("b", "3");
    assert.deepEqual(
      [...fields],
      [
        ["a", "1"],
        ["b", "2, 3"],
      ],
    );
    fields.set("A", "x");
    fields.delete("B");
    assert.deepEqual([...fields.entries()], [["a", "x"]]);
    assert.equal(fields.has("A"), true);
    assert.equal(fields.get("missing"), null);
    assert.equal(HeaderFields.isFieldList(fields), true);
    assert.equal(HeaderFields.isFieldList(new Headers()), true);
    assert.equal(HeaderFields.isFieldList({ authorization: "x" }), false);
    assert.equal(HeaderFields.isFieldList(null), false);
  });

  test("https: verifies the server's certificate against the trusted ones, and keeps the connection", async () => {
    const fixtures = fileURLToPath(new URL("../../../test/models/fixtures/", import.meta.url));
    const server = createSecureServer(
      { key: readFileSync(`${fixtures}loopback-key.pem`), cert: readFileSync(`${fixtures}loopback-cert.pem`) },
      (request, response) => {
        request.resume();
        request.on("end", () => response.writeHead(200).end(`secure ${request.method}`));
      },
    );
    let handshakes = 0;
    server.on("secureConnection", () => handshakes++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // A process of its own: the certificate is trusted the way a user trusts one, through NODE_EXTRA_CA_CERTS, read at start.
    const script = `
      import { modelFetch } from ${JSON.stringify(new URL("../../src/models/http-fetch.js", import.meta.url).href)};
      const answers = [];
      for (let i = 0; i < 2; i++) {
        try { answers.push(await (await modelFetch(${JSON.stringify(origin)}, { method: "POST", body: "{}" })).text()); }
        catch (error) { answers.push(error.message + ": " + (error.cause?.code ?? error.cause)); }
      }
      process.stdout.write(JSON.stringify(answers));`;
    const run = (env: NodeJS.ProcessEnv) =>
      new Promise<string[]>((resolve, reject) =>
        execFile(process.execPath, ["--input-type=module", "-e", script], { env }, (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout)))),
      );
    const { NODE_EXTRA_CA_CERTS: _, ...untrusted } = process.env;
    assert.deepEqual(await run({ ...untrusted, NODE_EXTRA_CA_CERTS: `${fixtures}loopback-cert.pem` }), ["secure POST", "secure POST"]);
    assert.equal(handshakes, 1, "the second request used the first one's connection");
    const refused = await run(untrusted);
    assert.equal(refused.length, 2);
    for (const answer of refused)
      assert.match(answer, /^fetch failed: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)$/);
  });
});
