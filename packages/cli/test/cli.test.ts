import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseCommand } from "../src/args.js";

const BIN = fileURLToPath(new URL("../../bin/knightcode.js", import.meta.url));
const VERSION = (JSON.parse(readFileSync(fileURLToPath(new URL("../../../app-server/package.json", import.meta.url)), "utf8")) as { version: string }).version;

/** Runs the binary with stdin left open: a command that waited for a connection would hang here (the deadline is generous for a loaded machine; a hang never ends). */
function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`knightcode ${args.join(" ")} did not exit`));
    }, 30_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

describe("spec: Starting (the command line)", () => {
  for (const args of [["app-server", "--help"], ["app-server", "-h"], ["--help"], ["-h"], ["app-server", "-e", "x.ts", "--help"]]) {
    test(`knightcode ${args.join(" ")} prints usage on stderr and exits 0 without opening a connection`, async () => {
      const result = await run(args);
      assert.equal(result.code, 0);
      assert.equal(result.stdout, "");
      assert.match(result.stderr, /knightcode app-server \[options\]/);
      assert.match(result.stderr, /--session-dir <dir>/);
      assert.match(result.stderr, /--listen-token-file <path>/);
      assert.match(result.stderr, /KNIGHTCODE_APP_SERVER_TOKEN/);
      assert.match(result.stderr, /openssl rand -hex 32/);
    });
  }

  for (const args of [["app-server", "--bogus"], ["app-server", "--session-dir"], ["app-server", "stray"], ["frobnicate"], [], ["app-server", "-e"]]) {
    test(`knightcode ${args.join(" ") || "(nothing)"} prints usage and exits 2`, async () => {
      const result = await run(args);
      assert.equal(result.code, 2);
      assert.equal(result.stdout, "");
      assert.match(result.stderr, /Usage:/);
    });
  }

  test("knightcode --version prints the version on stdout", async () => {
    const result = await run(["--version"]);
    assert.equal(result.code, 0);
    assert.equal(result.stdout, `knightcode ${VERSION}\n`);
  });
});

describe("argument parsing", () => {
  test("repeatable and valued flags, in both spellings", () => {
    assert.deepEqual(parseCommand(["app-server", "-e", "a.ts", "--extension=b.ts", "--session-dir", "/s", "--allow-origin", "x", "--allow-origin=y"]), {
      kind: "app-server",
      args: { extensions: ["a.ts", "b.ts"], sessionDir: "/s", allowOrigins: ["x", "y"] },
    });
    assert.deepEqual(parseCommand(["app-server", "--listen=ws://127.0.0.1:0", "--listen-token", "t"]), {
      kind: "app-server",
      args: { extensions: [], allowOrigins: [], listen: "ws://127.0.0.1:0", listenToken: "t" },
    });
    assert.deepEqual(parseCommand(["app-server", "--listen", "ws://127.0.0.1:0", "--listen-token-file=/run/token"]), {
      kind: "app-server",
      args: { extensions: [], allowOrigins: [], listen: "ws://127.0.0.1:0", listenTokenFile: "/run/token" },
    });
  });

  test("--listen-ready-file is taken with --listen and refused without it", () => {
    assert.deepEqual(parseCommand(["app-server", "--listen", "ws://127.0.0.1:0", "--listen-ready-file=/run/kc.json"]), {
      kind: "app-server",
      args: { extensions: [], allowOrigins: [], listen: "ws://127.0.0.1:0", listenReadyFile: "/run/kc.json" },
    });
    assert.deepEqual(parseCommand(["app-server", "--listen-ready-file", "/run/kc.json"]), {
      kind: "usage-error",
      message: "--listen-ready-file needs --listen",
    });
  });

  test("an empty value is an error, not a silent default", () => {
    assert.equal(parseCommand(["app-server", "--session-dir="]).kind, "usage-error");
  });
});
