// A model server over https on 127.0.0.1 for bench/first-turn-tls.mjs: the
// Responses API's stream of a one-word reply, with the test fixture's
// certificate. Prints its port on the first line of stdout.
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import { fileURLToPath } from "node:url";

const fixtures = fileURLToPath(new URL("../../packages/agent/test/models/fixtures/", import.meta.url));
const event = (type, fields) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
const response = { id: "resp_bench", object: "response", created_at: 0, model: "m", output: [] };
const message = { id: "msg_bench", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "hi", annotations: [] }] };
const part = { item_id: message.id, output_index: 0, content_index: 0 };
const reply = [
  event("response.created", { sequence_number: 0, response: { ...response, status: "in_progress" } }),
  event("response.output_item.added", { sequence_number: 1, output_index: 0, item: { ...message, status: "in_progress", content: [] } }),
  event("response.content_part.added", { sequence_number: 2, ...part, part: { type: "output_text", text: "", annotations: [] } }),
  event("response.output_text.delta", { sequence_number: 3, ...part, delta: "hi" }),
  event("response.output_text.done", { sequence_number: 4, ...part, text: "hi" }),
  event("response.output_item.done", { sequence_number: 5, output_index: 0, item: message }),
  event("response.completed", {
    sequence_number: 6,
    response: { ...response, status: "completed", output: [message], usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } },
  }),
].join("");

const server = createServer({ key: readFileSync(`${fixtures}loopback-key.pem`), cert: readFileSync(`${fixtures}loopback-cert.pem`) }, (request, answer) => {
  request.resume();
  request.on("end", () => {
    answer.writeHead(200, { "content-type": "text/event-stream" });
    answer.end(reply);
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
