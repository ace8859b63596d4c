import assert from "node:assert/strict";
import { test } from "node:test";
import { boundErrorMessage, classifyError, isTransient, shownUrl, turnFailureMessage } from "../../src/run/error-kind.js";

test("provider error texts are classified", () => {
  const cases: [string, string][] = [
    ["401 Invalid API key", "auth"],
    ["403 Forbidden", "auth"],
    ["invalid x-api-key", "auth"],
    ["429 Rate limit reached for gpt-5", "rateLimit"],
    ["You exceeded your current quota", "rateLimit"],
    ["400 This model's maximum context length is 128000 tokens", "contextOverflow"],
    ["prompt is too long: 210000 tokens > 200000 maximum", "contextOverflow"],
    ["Connection error.", "network"],
    ["fetch failed", "network"],
    ["Request timed out.", "network"],
    ["model stream stalled: no data for 300 s", "network"],
    ["500 Internal Server Error", "provider"],
    ["529 Overloaded", "provider"],
    ["503 Service Unavailable", "provider"],
    ["something odd happened", "other"],
  ];
  for (const [message, kind] of cases) assert.equal(classifyError(message), kind, message);
});

test("only rate limits, network and provider errors are retried", () => {
  assert.deepEqual((["auth", "rateLimit", "contextOverflow", "network", "provider", "other"] as const).filter(isTransient), [
    "rateLimit",
    "network",
    "provider",
  ]);
});

test("messages are bounded to 2,000 characters", () => {
  assert.equal(boundErrorMessage("x".repeat(5000)).length, 2000);
  assert.equal(boundErrorMessage("short"), "short");
});

test("a lost connection fails a turn with what broke, how often it was tried and what to do; other kinds keep their words", () => {
  const message = turnFailureMessage("terminated", "network", 3);
  assert.equal(
    message,
    "Lost the connection to the model provider, on all 3 attempts (terminated). Check the network and that the provider is reachable, then try again.",
  );
  assert.equal(classifyError(message), "network");
  assert.equal(
    turnFailureMessage("Connection error.", "network", 1),
    "Lost the connection to the model provider (Connection error). Check the network and that the provider is reachable, then try again.",
  );
  assert.equal(turnFailureMessage("503 Service Unavailable", "provider", 4), "503 Service Unavailable");
});

test("a lost connection names the provider's base URL, without anything that could carry a key", () => {
  assert.equal(
    turnFailureMessage("Connection error.", "network", 1, "http://127.0.0.1:11434/v1/"),
    "Lost the connection to the model provider at http://127.0.0.1:11434/v1 (Connection error). Check the network and that the provider is reachable, then try again.",
  );
  assert.equal(shownUrl("https://user:sk-secret@example.com:8443/openai/v1?api-key=sk-secret#k"), "https://example.com:8443/openai/v1");
  assert.equal(shownUrl("not a url"), undefined);
  assert.equal(shownUrl("file:///etc/passwd"), undefined);
  assert.equal(turnFailureMessage("401 Unauthorized", "auth", 1, "http://127.0.0.1:1/v1"), "401 Unauthorized");
});
