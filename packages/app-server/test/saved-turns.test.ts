import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { Turn } from "@knightcode/app-server-protocol";
import { SavedTurnCache } from "../src/history/saved-turns.js";
import { PayloadStore } from "../src/payloads/store.js";

const root = mkdtempSync(join(tmpdir(), "kc-saved-turns-"));
let now = 0;
const store = new PayloadStore({ root, ttlMs: 1000, now: () => now });
after(async () => {
  await store.dispose();
  rmSync(root, { recursive: true, force: true });
});

const referenced = (id: string): Turn => ({ id, status: "completed", startedAt: 1, completedAt: 2, payloadRef: store.put(`{"id":"${id}","items":[]}`) });

describe("spec: History, listings, and large values (a saved turn read again)", () => {
  test("a kept turn comes back for the same thread and key only, and renews its reference", () => {
    const cache = new SavedTurnCache();
    const turn = referenced("t1");
    cache.set("thread-a", "t1/e1/3", turn);
    assert.equal(cache.get("thread-b", "t1/e1/3", store), undefined);
    assert.equal(cache.get("thread-a", "t1/e1/4", store), undefined);
    now = 900;
    assert.deepEqual(cache.get("thread-a", "t1/e1/3", store), turn);
    // Renewed at 900: still held at 1800, past the first put's TTL.
    now = 1800;
    assert.deepEqual(cache.get("thread-a", "t1/e1/3", store), turn);
  });

  test("a turn whose reference expired is not handed out, and turns with items inline are never kept", async () => {
    const cache = new SavedTurnCache();
    cache.set("thread-a", "k", referenced("t2"));
    now += 5000;
    await store.sweep();
    assert.equal(cache.get("thread-a", "k", store), undefined);
    cache.set("thread-a", "inline", { id: "t3", status: "completed", startedAt: 1, items: [] });
    assert.equal(cache.get("thread-a", "inline", store), undefined);
  });

  test("the least recently used go first once more than 64 are kept", () => {
    const cache = new SavedTurnCache();
    const turns = Array.from({ length: 65 }, (_, i) => referenced(`many-${i}`));
    turns.forEach((turn, i) => {
      cache.set("thread-a", `k${i}`, turn);
      if (i === 10) assert.ok(cache.get("thread-a", "k0", store));
    });
    assert.ok(cache.get("thread-a", "k0", store), "used recently, so kept");
    assert.equal(cache.get("thread-a", "k1", store), undefined);
    assert.ok(cache.get("thread-a", "k64", store));
  });
});
