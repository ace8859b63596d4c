// The floor for relaying a model's stream: a bare Node process that opens
// one streaming request per thread to an OpenAI-compatible server, reads
// the server-sent events, and writes each text delta as one JSON-RPC
// notification line on stdout, as an app server would, and nothing else
// (no agent, no transcript, no schema). Arguments: the base URL and the
// number of threads. A line `{"ready":N}` says every request was sent.
const [base, count] = [process.argv[2], Number(process.argv[3])];

async function relay(thread) {
  const response = await fetch(`${base}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "scripted-model", stream: true, messages: [{ role: "user", content: `thread ${thread}` }] }),
  });
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const bytes of response.body) {
    buffer += decoder.decode(bytes, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      if (!event.startsWith("data: ") || event === "data: [DONE]") continue;
      const delta = JSON.parse(event.slice(6)).choices?.[0]?.delta?.content;
      if (delta)
        process.stdout.write(
          `${JSON.stringify({ method: "item/agentMessage/delta", params: { threadId: `t${thread}`, turnId: "turn", itemId: "item", delta } })}\n`,
        );
    }
  }
  process.stdout.write(`${JSON.stringify({ method: "turn/completed", params: { threadId: `t${thread}` } })}\n`);
}

await Promise.all(Array.from({ length: count }, (_, thread) => relay(thread)));
