import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { registerOAuthProvider, unregisterOAuthProvider, type OAuthLoginCallbacks, type OAuthProviderInterface } from "@mariozechner/pi-ai/oauth";
import { AuthFileError, AuthStore } from "../../src/models/auth-store.js";
import { OAuthLogins, hasOAuthLogin, type LoginEnd } from "../../src/models/oauth-logins.js";

// The logins over OAuth providers registered with pi-ai for the test: each
// is a real provider as far as pi-ai is concerned, whose login does what the
// test tells it through its callbacks, with no network.

const root = mkdtempSync(join(tmpdir(), "kc-oauth-logins-"));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

type Script = (callbacks: OAuthLoginCallbacks) => Promise<{ refresh: string; access: string; expires: number }>;

function provider(id: string, login: Script, usesCallbackServer?: boolean): OAuthProviderInterface {
  return {
    id,
    name: id,
    ...(usesCallbackServer === undefined ? {} : { usesCallbackServer }),
    login,
    refreshToken: async (credentials) => credentials,
    getApiKey: (credentials) => credentials.access,
  };
}

function setUp(options: { timeoutMs?: number } = {}) {
  const dir = join(root, `a${n++}`);
  const auth = new AuthStore(dir);
  const ends: LoginEnd[] = [];
  const lines: string[] = [];
  const logins = new OAuthLogins({ auth, onEnd: (end) => ends.push(end), log: (line) => lines.push(line), ...options });
  return { auth, ends, lines, logins, path: join(dir, "auth.json") };
}

/** Resolves once `probe` is true; the logins settle on their own promises, so a few turns of the loop suffice. */
async function until(what: string, probe: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !probe(); i++) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(probe(), what);
}

describe("OAuthLogins", () => {
  test("a completed login saves its credential 0600 and is told once; pi-ai's paste hint is dropped for a callback-server flow", async () => {
    let finish!: () => void;
    const browser = new Promise<void>((resolve) => (finish = resolve));
    registerOAuthProvider(
      provider(
        "test-callback",
        async (callbacks) => {
          callbacks.onAuth({ url: "https://login.example/authorize?x=1", instructions: "or paste the code here" });
          await browser;
          return { refresh: "r-1", access: "a-1", expires: 1 };
        },
        true,
      ),
    );
    try {
      const { ends, logins, path } = setUp();
      assert.equal(await hasOAuthLogin("test-callback"), true);
      const started = await logins.start("test-callback");
      assert.deepEqual(Object.keys(started).sort(), ["loginId", "url"]);
      assert.equal(started.url, "https://login.example/authorize?x=1");
      assert.deepEqual(ends, []);
      finish();
      await until("the login ends", () => ends.length === 1);
      assert.deepEqual(ends, [{ loginId: started.loginId, provider: "test-callback", outcome: "completed" }]);
      assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), { "test-callback": { refresh: "r-1", access: "a-1", expires: 1, type: "oauth" } });
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.equal(await logins.cancel(started.loginId), false, "an ended login is gone");
    } finally {
      unregisterOAuthProvider("test-callback");
    }
  });

  test("a device-code login gets the default for an optional prompt, and its instructions reach the client", async () => {
    const asked: string[] = [];
    registerOAuthProvider(
      provider("test-device", async (callbacks) => {
        asked.push(await callbacks.onPrompt({ message: "Enterprise domain (blank for the default)", allowEmpty: true }));
        callbacks.onAuth({ url: "https://device.example/activate", instructions: "Enter code: ABCD-1234" });
        await new Promise<void>((_, reject) => callbacks.signal!.addEventListener("abort", () => reject(new Error("aborted"))));
        throw new Error("unreachable");
      }),
    );
    try {
      const { ends, logins } = setUp();
      const started = await logins.start("test-device");
      assert.deepEqual(asked, [""]);
      assert.equal(started.instructions, "Enter code: ABCD-1234");
      assert.equal(await logins.cancel(started.loginId), true);
      assert.deepEqual(ends, [{ loginId: started.loginId, provider: "test-device", outcome: "cancelled" }]);
    } finally {
      unregisterOAuthProvider("test-device");
    }
  });

  test("a prompt for a pasted code fails the login with our words; before the URL it fails the start", async () => {
    registerOAuthProvider(
      provider(
        "test-paste-late",
        async (callbacks) => {
          callbacks.onAuth({ url: "https://login.example/late" });
          const code = await callbacks.onPrompt({ message: "Paste the code" });
          return { refresh: code, access: code, expires: 1 };
        },
        true,
      ),
    );
    registerOAuthProvider(
      provider("test-paste-early", async (callbacks) => {
        const code = await callbacks.onPrompt({ message: "Paste the code" });
        return { refresh: code, access: code, expires: 1 };
      }),
    );
    try {
      const { ends, logins, path } = setUp();
      const started = await logins.start("test-paste-late");
      await until("the login ends", () => ends.length === 1);
      assert.equal(ends[0]!.loginId, started.loginId);
      assert.equal(ends[0]!.outcome, "failed");
      assert.match(ends[0]!.message!, /asked for a code to be pasted, which the app server cannot pass on/);
      await assert.rejects(
        logins.start("test-paste-early"),
        (error: Error & { code?: string }) => error.code === "failed" && /cannot pass on/.test(error.message),
      );
      assert.equal(ends.length, 1, "a login that never showed a URL is answered, not announced");
      assert.throws(() => readFileSync(path), /ENOENT/);
    } finally {
      unregisterOAuthProvider("test-paste-late");
      unregisterOAuthProvider("test-paste-early");
    }
  });

  test("a provider's failure is never quoted: its words can carry tokens", async () => {
    registerOAuthProvider(
      provider(
        "test-leaky",
        async (callbacks) => {
          callbacks.onAuth({ url: "https://login.example/leaky" });
          await Promise.resolve();
          throw new Error('token exchange response missing fields: {"access_token":"at-secret-123"}');
        },
        true,
      ),
    );
    try {
      const { ends, lines, logins } = setUp();
      await logins.start("test-leaky");
      await until("the login ends", () => ends.length === 1);
      assert.deepEqual({ outcome: ends[0]!.outcome, message: ends[0]!.message }, { outcome: "failed", message: "the test-leaky login failed" });
      assert.ok(!JSON.stringify([ends, lines]).includes("at-secret"));
    } finally {
      unregisterOAuthProvider("test-leaky");
    }
  });

  test("a login not finished in time stops as failed, and saves nothing even if its flow returns later", async () => {
    registerOAuthProvider(
      provider(
        "test-slow",
        async (callbacks) => {
          callbacks.onAuth({ url: "https://login.example/slow" });
          // A flow that notices the stop only to return what it got anyway.
          await new Promise((resolve) => callbacks.signal!.addEventListener("abort", resolve));
          return { refresh: "r", access: "late-token", expires: 1 };
        },
        true,
      ),
    );
    try {
      const { ends, logins, path } = setUp({ timeoutMs: 1 });
      await logins.start("test-slow");
      await until("the login ends", () => ends.length === 1);
      assert.deepEqual({ outcome: ends[0]!.outcome, message: ends[0]!.message }, { outcome: "failed", message: "the login was not finished in time" });
      assert.throws(() => readFileSync(path), /ENOENT/);
    } finally {
      unregisterOAuthProvider("test-slow");
    }
  });

  test("a completed login that cannot be saved (corrupt auth.json) fails naming the file, which stays as it was", async () => {
    registerOAuthProvider(
      provider(
        "test-corrupt",
        async (callbacks) => {
          callbacks.onAuth({ url: "https://login.example/corrupt" });
          await Promise.resolve();
          return { refresh: "r", access: "a", expires: 1 };
        },
        true,
      ),
    );
    try {
      const { ends, logins, path, auth } = setUp();
      await auth.set("other", { type: "api_key", key: "k" });
      writeFileSync(path, "{broken sk-corrupt");
      await logins.start("test-corrupt");
      await until("the login ends", () => ends.length === 1);
      assert.equal(ends[0]!.outcome, "failed");
      assert.match(ends[0]!.message!, /could not be saved: .*auth\.json is not valid JSON/);
      assert.ok(!ends[0]!.message!.includes("sk-corrupt"));
      assert.equal(readFileSync(path, "utf8"), "{broken sk-corrupt");
    } finally {
      unregisterOAuthProvider("test-corrupt");
    }
  });

  test("stop cancels every pending login and refuses new ones", async () => {
    registerOAuthProvider(
      provider(
        "test-stop",
        async (callbacks) => {
          callbacks.onAuth({ url: "https://login.example/stop" });
          return { refresh: "r", access: await callbacks.onManualCodeInput!(), expires: 1 };
        },
        true,
      ),
    );
    try {
      const { ends, logins } = setUp();
      const started = await logins.start("test-stop");
      await logins.stop();
      assert.deepEqual(ends, [{ loginId: started.loginId, provider: "test-stop", outcome: "cancelled" }]);
      await assert.rejects(logins.start("test-stop"), (error: Error & { code?: string }) => error.code === "stopped");
      assert.equal(await hasOAuthLogin("no-such-provider"), false);
    } finally {
      unregisterOAuthProvider("test-stop");
    }
  });
});

describe("AuthStore", () => {
  test("entries it does not understand are kept, and a provider named __proto__ is an entry like any other", async () => {
    const dir = join(root, `a${n++}`);
    const auth = new AuthStore(dir);
    await auth.set("openai", { type: "api_key", key: "sk-1" });
    const raw = JSON.parse(readFileSync(auth.path, "utf8")) as Record<string, unknown>;
    writeFileSync(auth.path, JSON.stringify({ ...raw, future: { type: "something-new", value: 1 } }));
    assert.deepEqual(await auth.set("__proto__", { type: "api_key", key: "sk-2" }), { existed: false });
    assert.deepEqual(Object.keys(auth.readAll().credentials).sort(), ["__proto__", "openai"]);
    assert.equal(auth.get("constructor"), undefined);
    assert.deepEqual(await auth.set("openai", undefined), { existed: true });
    assert.deepEqual(await auth.set("openai", undefined), { existed: false });
    const left = JSON.parse(readFileSync(auth.path, "utf8")) as Record<string, unknown>;
    assert.deepEqual(Object.keys(left).sort(), ["__proto__", "future"]);
    assert.deepEqual(left.future, { type: "something-new", value: 1 });
  });

  test("a corrupt file is an AuthFileError naming the file, never quoting it", async () => {
    const dir = join(root, `a${n++}`);
    const auth = new AuthStore(dir);
    await auth.set("openai", { type: "api_key", key: "sk-1" });
    writeFileSync(auth.path, '{"openai": {"type": "api_key", "key": sk-quoted-secret}}');
    await assert.rejects(auth.set("openai", undefined), (error: unknown) => {
      assert.ok(error instanceof AuthFileError);
      assert.equal(error.code, "corrupt");
      assert.ok(error.message.includes(auth.path));
      assert.ok(!error.message.includes("sk-quoted"));
      return true;
    });
    assert.ok(!auth.readAll().problem!.message.includes("sk-quoted"));
  });
});
