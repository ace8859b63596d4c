import assert from "node:assert/strict";
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ReconnectingClient } from "@knightcode/app-server-client";
import { Impostor, NO_OTHER_USER, otherUser } from "@knightcode/testkit";
import { runCli, TestServer } from "../support/harness.js";

// Issue 27, door 7: --listen-ready-file in a folder others can write.
const TOKEN = "ready-trust-token-0123456789abcdef0123456789";
const CLIENT_INFO = { clientInfo: { name: "ready-trust-test", version: "0" } };
const VICTIM_TEXT = "a file of ours that nobody else may change\n";

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), "kc-ready-trust-"));
  chmodSync(dir, 0o755);
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh folder with `mode`, as another user would find it (a sticky one like /tmp: 1777). */
function folder(mode: number): string {
  const path = join(dir, `f-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(path);
  chmodSync(path, mode);
  return path;
}

const runServer = (args: string[]) => runCli(["app-server", ...args], { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN });

describe("door 7: the server writes its ready file only where nobody else can replace it", () => {
  test("a folder others may write that is not sticky is refused before the server starts", async () => {
    const open = folder(0o777);
    const result = await runServer(["--listen", "ws://127.0.0.1:0", "--listen-ready-file", join(open, "ready.json")]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /cannot write the ready file .*: .* is writable by other users and not sticky \(mode 0777\)/);
    assert.deepEqual(readdirSync(open), []);
  });

  test("a folder that belongs to another user is refused", { skip: NO_OTHER_USER }, async () => {
    const theirs = folder(0o755);
    chownSync(theirs, otherUser()!.uid, otherUser()!.gid);
    const result = await runServer(["--listen", "ws://127.0.0.1:0", "--listen-ready-file", join(theirs, "ready.json")]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`belongs to user ${otherUser()!.uid}, who could replace what is in it`));
  });

  test("in a sticky shared folder, symlinks another user planted at every name the server might write are never written through", {
    skip: NO_OTHER_USER,
  }, async () => {
    const user = otherUser()!;
    const shared = folder(0o1777);
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, VICTIM_TEXT);
    const readyFile = join(shared, "ready.json");
    assert.equal((await user.run("ln", ["-s", victim, readyFile])).code, 0);
    const server = new TestServer({ args: ["--listen", "ws://127.0.0.1:0", "--listen-ready-file", readyFile], env: { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN } });
    try {
      // The name a server would pick from its pid, planted before it gets there.
      assert.equal((await user.run("ln", ["-s", victim, `${readyFile}.${server.pid}.tmp`])).code, 0);
      await server.main.initialize();
      await server.waitForStderr(/listening on/);
      assert.equal(readFileSync(victim, "utf8"), VICTIM_TEXT, "nothing was written through a planted link");
      const stats = lstatSync(readyFile);
      assert.ok(stats.isFile(), "the ready file is a file of its own");
      assert.equal(stats.uid, process.getuid!());
      assert.equal(stats.mode & 0o777, 0o600);
      assert.equal(JSON.parse(readFileSync(readyFile, "utf8")).pid, server.pid);
    } finally {
      await server.close();
    }
  });
});

describe("door 7: ReconnectingClient reads a ready file only when it is ours and names a listener on this machine", () => {
  /** Connects through `readyFile`; the failure it must end in. */
  async function refusal(readyFile: string): Promise<{ kind?: string; message?: string }> {
    const error = await ReconnectingClient.connect({ readyFile, token: TOKEN, initialize: CLIENT_INFO, retryDelaysMs: [20] }).then(
      async (client) => {
        await client.close();
        return { message: "connected" };
      },
      (e: unknown) => e as { kind?: string; message?: string },
    );
    return error;
  }

  test("a ready file another user wrote into a sticky shared folder, naming their listener: refused, and they see nothing", {
    skip: NO_OTHER_USER,
  }, async () => {
    const user = otherUser()!;
    const shared = folder(0o1777);
    const readyFile = join(shared, "ready.json");
    const port = await freePort();
    const impostor = await Impostor.start({ port, mode: "answer", user });
    try {
      const wrote = await user.run("sh", ["-c", `printf '%s\\n' '{"url":"ws://127.0.0.1:${port}","pid":1}' > "${readyFile}"`]);
      assert.equal(wrote.code, 0, wrote.stderr);
      const error = await refusal(readyFile);
      assert.equal(error.kind, "untrusted", error.message);
      assert.match(error.message!, new RegExp(`the ready file .* is not used: .* belongs to user ${user.uid}, not to you`));
      assert.deepEqual(
        impostor.records.filter((record) => record.kind !== "listening"),
        [],
        "the client never reached their listener",
      );
    } finally {
      await impostor.close();
    }
  });

  for (const [label, prepare, message] of [
    [
      "that is writable by its group and others (0666)",
      (path: string) => (writeFileSync(path, ready("ws://127.0.0.1:1")), chmodSync(path, 0o666)),
      /is writable by other users \(mode 0666\)/,
    ],
    [
      "naming an address that is not loopback",
      (path: string) => writeFileSync(path, ready("ws://10.11.12.13:4000"), { mode: 0o600 }),
      /ws:\/\/10\.11\.12\.13:4000 is not on this machine's loopback interface/,
    ],
    [
      "naming a host by name",
      (path: string) => writeFileSync(path, ready("ws://example.com:4000"), { mode: 0o600 }),
      /ws:\/\/example\.com:4000 is not on this machine's loopback interface/,
    ],
    [
      "naming another scheme",
      (path: string) => writeFileSync(path, ready("wss://127.0.0.1:4000"), { mode: 0o600 }),
      /is not a ws:\/\/, http:\/\/ or unix:\/\/ URL/,
    ],
    [
      "that is a symlink to a ready file of ours",
      (path: string) => (writeFileSync(`${path}.real`, ready("ws://127.0.0.1:1"), { mode: 0o600 }), symlinkSync(`${path}.real`, path)),
      /is a symbolic link/,
    ],
  ] as const) {
    test(`a ready file ${label} is refused as untrusted`, async () => {
      const path = join(folder(0o700), "ready.json");
      prepare(path);
      const error = await refusal(path);
      assert.equal(error.kind, "untrusted", error.message);
      assert.match(error.message!, message);
    });
  }

  test("a ready file of ours in a folder others may write, not sticky: refused", async () => {
    const open = folder(0o777);
    const path = join(open, "ready.json");
    writeFileSync(path, ready("ws://127.0.0.1:1"), { mode: 0o600 });
    const error = await refusal(path);
    assert.equal(error.kind, "untrusted", error.message);
    assert.match(error.message!, /is writable by other users and not sticky/);
  });

  test("a ready file not written yet is waited for, not refused as untrusted: giving up says it was not there yet", async () => {
    const path = join(folder(0o700), "later.json");
    type Refusal = { kind?: string; message?: string; cause?: { message?: string } };
    const error: Refusal = await ReconnectingClient.connect({
      readyFile: path,
      token: TOKEN,
      initialize: CLIENT_INFO,
      retryDelaysMs: [20],
      maxAttempts: 3,
    }).then(
      async (client): Promise<Refusal> => {
        await client.close();
        return { message: "connected" };
      },
      (e: unknown) => e as Refusal,
    );
    assert.equal(error.kind, "closed", error.message);
    assert.match(error.message!, /is not there yet/);
    assert.match(error.cause?.message ?? "", /is not there yet/);
  });
});

function ready(url: string): string {
  return JSON.stringify({ url, pid: 1 }) + "\n";
}

async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
