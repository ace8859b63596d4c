// The scripted model's side of the soak. It decides from the prompt, not from
// a queue, so threads may ask in any order and several at once: a prompt
// "soak thread N" gets a reply of `replyBytes` (unique per thread, so the
// payload store cannot share one file among them); with "[bash]" in it, the
// first request gets a bash call that leaves `sleep 600` running and writes
// its pid to `pidFile`. Usage is reported small so no turn compacts.
const USAGE = { input: 1000, output: 1000 };

export function soakResponder({ replyBytes, chunkBytes, pidFile }) {
  let filler = "";
  for (let k = 0; filler.length < replyBytes; k++) filler += `w${k % 1000} `;
  const counts = { replies: 0, bashCalls: 0, other: 0 };
  const reply = (index) => {
    const text = `Reply of soak thread ${index}. ${filler}`.slice(0, replyBytes);
    const chunks = [];
    for (let at = 0; at < text.length; at += chunkBytes) chunks.push(text.slice(at, at + chunkBytes));
    return chunks;
  };
  const respond = (request) => {
    const messages = request.body.messages ?? [];
    const prompt = JSON.stringify(messages.findLast((m) => m.role === "user")?.content ?? "");
    const index = Number(/soak thread (\d+)/.exec(prompt)?.[1] ?? -1);
    if (index < 0) {
      counts.other++;
      return { text: "ok", usage: USAGE };
    }
    if (prompt.includes("[bash]") && messages.at(-1)?.role !== "tool") {
      counts.bashCalls++;
      const command = `KNIGHTCODE_SOAK_BACKGROUND=${index} sleep 600 > /dev/null 2>&1 & echo $! >> '${pidFile}'`;
      return { toolCalls: [{ name: "bash", arguments: { command } }], usage: USAGE };
    }
    counts.replies++;
    return { text: reply(index), usage: USAGE };
  };
  return { respond, counts };
}
