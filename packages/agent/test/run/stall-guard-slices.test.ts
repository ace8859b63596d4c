import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { AssistantMessage, AssistantMessageEvent, Context } from "@mariozechner/pi-ai";
import { loadEngine } from "../../src/models/engine.js";
import type { ProviderStream } from "../../src/models/models-json.js";
import { RELAY_SLICE_MS } from "../../src/run/relay-slice.js";
import { stallGuardedStream } from "../../src/run/stall-guard.js";
import { countLoopTurns } from "../support/loop-turns.js";
import { noUsage as usage, ownModel as model } from "../support/own-model.js";

const { ai } = await loadEngine();

const partial: AssistantMessage = { role: "assistant", content: [], api: model.api, provider: "own", model: "m", usage, stopReason: "stop", timestamp: 1 };
const context: Context = { messages: [{ role: "user", content: "hi", timestamp: 1 }] };

/** A reply with a thinking block and a text block. */
function reply(): AssistantMessageEvent[] {
  return [
    { type: "start", partial },
    { type: "thinking_start", contentIndex: 0, partial },
    { type: "thinking_delta", contentIndex: 0, delta: "hm", partial },
    { type: "thinking_end", contentIndex: 0, content: "hm", partial },
    { type: "text_start", contentIndex: 1, partial },
    { type: "text_delta", contentIndex: 1, delta: "a", partial },
    { type: "text_delta", contentIndex: 1, delta: "b", partial },
    { type: "text_end", contentIndex: 1, content: "ab", partial },
    { type: "done", reason: "stop", message: partial },
  ];
}

describe("the relay's slices of the event loop", () => {
  test("a spent slice lets the loop turn between events, but never between a block's start and its first delta", async () => {
    let now = 0;
    const own: ProviderStream = async function* () {
      yield* reply();
    };
    // Turns of the loop, counted while the reply relays: an immediate runs only when the relay lets the loop turn.
    const loop = countLoopTurns();
    const stream = await stallGuardedStream(
      ai,
      60_000,
      () => own,
      undefined,
      () => now,
    )(model, context, {});
    const seen: { type: string; turns: number }[] = [];
    for await (const event of stream) {
      seen.push({ type: event.type, turns: loop.turns });
      // What the relay does with each event costs more than a whole slice.
      now += RELAY_SLICE_MS + 1;
    }
    loop.stop();
    assert.deepEqual(
      seen.map((s) => s.type),
      reply().map((e) => e.type),
    );
    const turnedBefore = (i: number) => seen[i]!.turns > seen[i - 1]!.turns;
    for (let i = 1; i < seen.length; i++) {
      const after = seen[i - 1]!.type;
      if (after === "thinking_start" || after === "text_start") assert.equal(turnedBefore(i), false, `no turn between ${after} and ${seen[i]!.type}`);
    }
    // Elsewhere the slice runs out and the relay lets the loop turn: between the two deltas, and more than once in all.
    assert.equal(turnedBefore(seen.findIndex((s, i) => i > 0 && s.type === "text_delta" && seen[i - 1]!.type === "text_delta")), true);
    assert.ok(seen.at(-1)!.turns - seen[0]!.turns >= 3, `turns during the reply: ${JSON.stringify(seen)}`);
  });
});
