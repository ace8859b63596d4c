// What a server wrote on stderr, kept small for a long run: the first 4 KiB
// (where Node announces its inspector), the last 40 lines (where an
// out-of-memory abort explains itself), lines counted by level, and warnings
// and errors grouped by message.
const LINE_LIMIT = 400;

export function watchServerLog(stream) {
  const log = { head: "", tail: [], levels: { debug: 0, info: 0, warn: 0, error: 0 }, problems: new Map() };
  let partial = "";
  const note = (line) => {
    log.tail.push(line.slice(0, LINE_LIMIT));
    if (log.tail.length > 40) log.tail.shift();
    const level = /^\S+ (debug|info|warn|error) (.*)$/.exec(line);
    if (!level) return;
    log.levels[level[1]]++;
    if (level[1] === "warn" || level[1] === "error") {
      // Ids and numbers blanked, so 500 alike lines read as one.
      const key = level[2]
        .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "<id>")
        .replace(/\d+/g, "N")
        .slice(0, 200);
      log.problems.set(key, (log.problems.get(key) ?? 0) + 1);
    }
  };
  stream.on("data", (chunk) => {
    const text = chunk.toString();
    if (log.head.length < 4096) log.head += text.slice(0, 4096 - log.head.length);
    const lines = (partial + text).split("\n");
    partial = lines.pop();
    for (const line of lines) note(line);
  });
  /** Takes in a last line without its newline (an abort may end mid-line). */
  log.flush = () => {
    if (partial) note(partial);
    partial = "";
  };
  return log;
}
