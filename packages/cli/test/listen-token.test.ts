import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { MIN_TOKEN_LENGTH, resolveListenToken, type TokenOutcome } from "../src/listen-token.js";

const TOKEN = "0123456789abcdef0123456789abcdef";
const dir = mkdtempSync(join(tmpdir(), "kc-token-"));
after(() => rmSync(dir, { recursive: true, force: true }));

let fileSeq = 0;
function tokenFile(content: string, mode = 0o600): string {
  const path = join(dir, `token-${++fileSeq}`);
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
}

function token(outcome: TokenOutcome): string {
  assert.ok(outcome.ok, outcome.ok ? "" : outcome.message);
  return outcome.token;
}

function refusal(outcome: TokenOutcome): string {
  assert.ok(!outcome.ok, "the token was accepted");
  return outcome.message;
}

describe("--listen token sources", () => {
  test("from the environment, with no warning", () => {
    const outcome = resolveListenToken({ env: TOKEN });
    assert.equal(token(outcome), TOKEN);
    assert.deepEqual(outcome.ok && outcome.warnings, []);
  });

  test("from a 0600 file of this user, its one trailing line ending dropped", () => {
    assert.equal(token(resolveListenToken({ file: tokenFile(`${TOKEN}\n`) })), TOKEN);
    assert.equal(token(resolveListenToken({ file: tokenFile(`${TOKEN}\r\n`) })), TOKEN);
    assert.equal(token(resolveListenToken({ file: tokenFile(TOKEN) })), TOKEN);
  });

  test("from the flag, with a warning that names both alternatives", () => {
    const outcome = resolveListenToken({ flag: TOKEN });
    assert.equal(token(outcome), TOKEN);
    assert.ok(outcome.ok);
    assert.equal(outcome.warnings.length, 1);
    assert.match(outcome.warnings[0]!, /visible to other local users/);
    assert.match(outcome.warnings[0]!, /--listen-token-file/);
    assert.match(outcome.warnings[0]!, /KNIGHTCODE_APP_SERVER_TOKEN/);
  });

  test("the flag or the file wins over the environment; the flag and the file together are refused", () => {
    const other = "f".repeat(40);
    assert.equal(token(resolveListenToken({ flag: TOKEN, env: other })), TOKEN);
    assert.equal(token(resolveListenToken({ file: tokenFile(TOKEN), env: other })), TOKEN);
    assert.match(refusal(resolveListenToken({ flag: TOKEN, file: tokenFile(TOKEN) })), /--listen-token or --listen-token-file, not both/);
  });

  test("no token at all names every way to give one", () => {
    for (const sources of [{}, { env: "" }]) {
      const message = refusal(resolveListenToken(sources));
      for (const way of ["--listen-token-file", "KNIGHTCODE_APP_SERVER_TOKEN", "--listen-token"]) assert.ok(message.includes(way), message);
    }
  });
});

describe("--listen token strength", () => {
  const short = "x".repeat(MIN_TOKEN_LENGTH - 1);
  for (const [label, sources] of [
    ["the flag", () => ({ flag: short })],
    ["the environment", () => ({ env: short })],
    ["a file", () => ({ file: tokenFile(`${short}\n`) })],
  ] as const) {
    test(`a token shorter than ${MIN_TOKEN_LENGTH} characters from ${label} is refused with a way to make one`, () => {
      const message = refusal(resolveListenToken(sources()));
      assert.match(message, /31 characters; use at least 32/);
      assert.match(message, /openssl rand -hex 32/);
      assert.ok(!message.includes(short), "the message does not repeat the token");
    });
  }

  test("whitespace or control characters inside a token are refused", () => {
    assert.match(refusal(resolveListenToken({ env: `${TOKEN} ${TOKEN}` })), /whitespace or control characters/);
    assert.match(refusal(resolveListenToken({ file: tokenFile(`${TOKEN}\n\n`) })), /whitespace or control characters/);
  });
});

describe("--listen-token-file refuses a file others could read or swap", () => {
  for (const mode of [0o644, 0o640, 0o604, 0o620, 0o660]) {
    test(`mode ${mode.toString(8)} is refused, telling how to fix it`, () => {
      const path = tokenFile(TOKEN, mode);
      const message = refusal(resolveListenToken({ file: path }));
      assert.match(message, new RegExp(`accessible to other users \\(mode 0${mode.toString(8)}\\); run: chmod 600`));
    });
  }

  test("0400 and 0700 are as good as 0600", () => {
    assert.equal(token(resolveListenToken({ file: tokenFile(TOKEN, 0o400) })), TOKEN);
    assert.equal(token(resolveListenToken({ file: tokenFile(TOKEN, 0o700) })), TOKEN);
  });

  test("on Windows the mode and owner are not checked", () => {
    assert.equal(token(resolveListenToken({ file: tokenFile(TOKEN, 0o644) }, { platform: "win32", uid: 12345 })), TOKEN);
  });

  test("a file of another user is refused", () => {
    assert.match(refusal(resolveListenToken({ file: tokenFile(TOKEN) }, { uid: (process.getuid?.() ?? 0) + 1 })), /belongs to user \d+, not to this user/);
  });

  test("a file chowned to another user is refused", { skip: process.getuid?.() !== 0 && "needs root to chown" }, () => {
    const path = tokenFile(TOKEN);
    chownSync(path, 65534, 65534);
    assert.match(refusal(resolveListenToken({ file: path })), /belongs to user 65534/);
  });

  test("a missing file, a directory and a FIFO are refused without blocking", () => {
    assert.match(refusal(resolveListenToken({ file: join(dir, "nope") })), /cannot read the token file .*nope: it does not exist/);
    const folder = join(dir, "a-folder");
    mkdirSync(folder, { mode: 0o700 });
    assert.match(refusal(resolveListenToken({ file: folder })), /is not a regular file/);
    const fifo = join(dir, "a-fifo");
    execFileSync("mkfifo", ["-m", "600", fifo]);
    assert.match(refusal(resolveListenToken({ file: fifo })), /is not a regular file/);
  });

  test("a file larger than a token line is refused", () => {
    assert.match(refusal(resolveListenToken({ file: tokenFile("a".repeat(5000)) })), /larger than 4096 bytes/);
  });
});
