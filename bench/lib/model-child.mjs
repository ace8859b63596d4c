// The scripted model in a process of its own, so that writing fifty
// replies at once does not hold up the bench that times their arrival.
// Driven over IPC: {hold: n, deltas, chunkDelayMs} queues n replies held after their
// first chunk, answering {held: requestsSoFar} once queued; {waitFor: n}
// answers {arrived} once n requests came; {open: true} releases every
// held reply; {delegate: n, deltas} queues a reply that starts n sub-agents
// (agent_start calls), their n held replies, and the parent's last answer.
// It prints its base URL as the first IPC message.
const { ScriptedModelServer } = await import(new URL("../../packages/testkit/dist/src/index.js", import.meta.url));

const model = await ScriptedModelServer.start();
let open;
let gate = new Promise((resolve) => {
  open = resolve;
});

process.on("message", async (message) => {
  if (message.hold !== undefined) {
    const text = Array.from({ length: message.deltas }, (_, i) => `w${i} `);
    for (let i = 0; i < message.hold; i++) model.enqueue({ text, pauseAfter: 1, gate, usage: false, chunkDelayMs: message.chunkDelayMs ?? 0 });
    process.send({ held: model.requests.length });
  } else if (message.delegate !== undefined) {
    const text = Array.from({ length: message.deltas }, (_, i) => `w${i} `);
    const toolCalls = Array.from({ length: message.delegate }, (_, i) => ({
      id: `call_sub_${Date.now()}_${i}`,
      name: "agent_start",
      arguments: { task: `stream ${i}` },
    }));
    model.enqueue({ toolCalls, usage: false });
    for (let i = 0; i < message.delegate; i++) model.enqueue({ text, pauseAfter: 1, gate, usage: false, chunkDelayMs: message.chunkDelayMs ?? 0 });
    model.enqueue({ text: "all done", usage: false });
    process.send({ held: model.requests.length });
  } else if (message.waitFor !== undefined) {
    await model.waitForRequests(message.waitFor, 60_000);
    process.send({ arrived: model.requests.length });
  } else if (message.open) {
    open();
    gate = new Promise((resolve) => {
      open = resolve;
    });
    process.send({ opened: true });
  } else if (message.close) {
    await model.close();
    process.exit(0);
  }
});
process.send({ baseUrl: model.baseUrl, modelsJson: model.modelsJson() });
