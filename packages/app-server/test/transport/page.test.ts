import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, test } from "node:test";
import { get, listen, makePageRoot, SECRET, type PageFixture, type RunningListener } from "./page-support.js";

describe("the listener serves the page (docs/desktop.md: Security)", () => {
  let fixture: PageFixture;
  let running: RunningListener;
  before(async () => {
    fixture = makePageRoot();
    running = await listen({ page: { root: fixture.root } });
  });
  after(async () => {
    await running.stop();
    fixture.remove();
  });

  test("/ is index.html, with the strict CSP, nosniff, no referrer and no caching", async () => {
    const { port } = running;
    const answer = await get(port, "/");
    assert.equal(answer.status, 200);
    assert.match(answer.body, /<title>page<\/title>/);
    assert.equal(answer.headers["content-type"], "text/html; charset=utf-8");
    assert.equal(
      answer.headers["content-security-policy"],
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; " +
        `connect-src 'self' ws://127.0.0.1:${port}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
    );
    assert.equal(answer.headers["x-content-type-options"], "nosniff");
    assert.equal(answer.headers["referrer-policy"], "no-referrer");
    assert.equal(answer.headers["cache-control"], "no-store");
    const byName = await get(port, "/index.html?v=1#x", { host: `localhost:${port}` });
    assert.equal(byName.status, 200);
    assert.match(
      String(byName.headers["content-security-policy"]),
      new RegExp(`connect-src 'self' ws://localhost:${port} ws://127.0.0.1:${port};`),
      "the CSP names the host the page was loaded from, and the address it connects to",
    );
  });

  test("HEAD answers the headers of GET without a body", async () => {
    const head = await get(running.port, "/app.js", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.body, "");
    assert.equal(head.headers["content-length"], String("console.log('page');\n".length));
  });

  test("each file type gets its Content-Type", async () => {
    const expected: Record<string, string> = {
      "/app.js": "text/javascript; charset=utf-8",
      "/app.js.map": "application/json; charset=utf-8",
      "/app.css": "text/css; charset=utf-8",
      "/data.json": "application/json; charset=utf-8",
      "/icon.svg": "image/svg+xml",
      "/logo.png": "image/png",
      "/fonts/mono.woff2": "font/woff2",
      "/alias.js": "text/javascript; charset=utf-8",
    };
    for (const [path, type] of Object.entries(expected)) {
      const answer = await get(running.port, path);
      assert.equal(answer.status, 200, path);
      assert.equal(answer.headers["content-type"], type, path);
      assert.equal(answer.headers["x-content-type-options"], "nosniff", path);
      assert.notEqual(answer.headers["cache-control"], "no-store", `${path} may be revalidated rather than refetched`);
    }
  });

  test("nothing outside the root, and no hidden file, is ever served", async () => {
    const attempts = [
      "/../secret.txt",
      "/fonts/../../secret.txt",
      "/%2e%2e/secret.txt",
      "/%2E%2E/secret.txt",
      "/fonts/%2e%2e/%2e%2e/secret.txt",
      "/..%2fsecret.txt",
      "/fonts%2f..%2f..%2fsecret.txt",
      "/..%5csecret.txt",
      "/%252e%252e/secret.txt",
      "/index.html%00.js",
      "/index.html\u0000",
      "/escape.txt",
      "/escape-dir/secret.txt",
      "/.env",
      "/fonts/.hidden",
      "/%2eenv",
      "/fonts",
      "/fonts/",
      "//secret.txt",
      "/%zz",
      "*",
    ];
    for (const path of attempts) {
      const answer = await get(running.port, path).catch((error: Error) => ({ status: -1, body: error.message, headers: {} }));
      assert.ok(answer.status === 404 || answer.status === 400 || answer.status === -1, `${JSON.stringify(path)} answered ${answer.status}`);
      assert.ok(!answer.body.includes(SECRET), `${JSON.stringify(path)} leaked the secret`);
    }
  });

  test("a raw request line with .. is refused too", async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(running.port, "127.0.0.1", () => {
        socket.write(`GET /../../secret.txt HTTP/1.1\r\nHost: 127.0.0.1:${running.port}\r\nConnection: close\r\n\r\n`);
      });
      let received = "";
      socket.on("data", (chunk) => (received += chunk.toString()));
      socket.on("end", () => resolve(received));
      socket.on("error", reject);
    });
    assert.match(text, /^HTTP\/1\.1 404 /);
    assert.ok(!text.includes(SECRET));
  });

  test("methods other than GET and HEAD get 405 with Allow", async () => {
    for (const method of ["POST", "PUT", "DELETE", "OPTIONS"]) {
      const answer = await get(running.port, "/", { method });
      assert.equal(answer.status, 405, method);
      assert.equal(answer.headers.allow, "GET, HEAD");
    }
  });

  test("a Host that does not name the listener is refused with 421 (DNS rebinding)", async () => {
    const { port } = running;
    for (const host of ["evil.test", `evil.test:${port}`, `127.0.0.1:${port + 1}`, `[::1]:${port}`, `127.0.0.2:${port}`, "127.0.0.1"]) {
      const answer = await get(port, "/", { host });
      assert.equal(answer.status, 421, host);
      assert.doesNotMatch(answer.body, /<title>/);
    }
    assert.equal((await get(port, "/", { host: `LOCALHOST:${port}` })).status, 200, "host names are case-insensitive");
  });

  test("a request without a Host header is refused", async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(running.port, "127.0.0.1", () => socket.write("GET / HTTP/1.0\r\n\r\n"));
      let received = "";
      socket.on("data", (chunk) => (received += chunk.toString()));
      socket.on("end", () => resolve(received));
      socket.on("error", reject);
    });
    assert.match(text, /^HTTP\/1\.[01] 421 /);
  });
});

describe("without a page the listener serves nothing", () => {
  test("a plain request is told to upgrade, whatever its Host", async () => {
    const running = await listen();
    try {
      assert.equal((await get(running.port, "/")).status, 426);
      assert.equal((await get(running.port, "/index.html", { host: "evil.test" })).status, 426);
    } finally {
      await running.stop();
    }
  });
});
