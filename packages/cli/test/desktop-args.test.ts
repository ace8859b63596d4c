import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseCommand, USAGE } from "../src/args.js";

describe("knightcode desktop: its command line", () => {
  test("defaults: a free port, a browser opened, no token file", () => {
    assert.deepEqual(parseCommand(["desktop"]), { kind: "desktop", args: { extensions: [], port: 0, open: true } });
  });

  test("every option, in both spellings", () => {
    const command = parseCommand([
      "desktop",
      "--port",
      "8765",
      "--no-open",
      "-e",
      "a.ts",
      "--extension=b.ts",
      "--session-dir",
      "/s",
      "--listen-token-file=/t",
      "--ready-file",
      "/r",
    ]);
    assert.deepEqual(command, {
      kind: "desktop",
      args: { extensions: ["a.ts", "b.ts"], port: 8765, open: false, sessionDir: "/s", listenTokenFile: "/t", readyFile: "/r" },
    });
  });

  test("a port that is not one, an unknown option or a stray argument is a usage error", () => {
    for (const [argv, message] of [
      [["desktop", "--port", "http"], /--port takes a number from 0 to 65535, not "http"/],
      [["desktop", "--port", "65536"], /--port takes a number/],
      [["desktop", "--port", "-1"], /--port takes a number/],
      [["desktop", "--port"], /--port needs a value/],
      [["desktop", "--listen", "ws://127.0.0.1:0"], /unknown option --listen/],
      [["desktop", "--listen-token", "x"], /unknown option --listen-token/],
      [["desktop", "stray"], /unexpected argument "stray"/],
    ] as const) {
      const command = parseCommand(argv);
      assert.equal(command.kind, "usage-error", argv.join(" "));
      assert.match((command as { message: string }).message, message);
    }
  });

  test("--help prints the usage, which lists the command and its options", () => {
    assert.deepEqual(parseCommand(["desktop", "--help"]), { kind: "help" });
    assert.match(USAGE, /knightcode desktop \[options\]/);
    assert.match(USAGE, /--no-open/);
  });
});
