#!/usr/bin/env node
// One fresh app-server process, one fuzzy file search method: spawn, the
// handshake, a pause, then the first search and the repeated ones, each
// timed from the request's write to its answer. Prints one JSON line.
// bench/search.mjs runs it, inside a loopback-only network namespace.
//
//   node search-driver.mjs '<json>'
//   {cmd, args, cwd, env, initialize, method, params, query, repeats, settleMs, pauseMs}
// `params` is the method's params with the string "$QUERY" where the query goes.
import { spawn } from "node:child_process";

const config = JSON.parse(process.argv[2]);
const child = spawn(config.cmd, config.args, { cwd: config.cwd, env: config.env, stdio: ["pipe", "pipe", "ignore"] });
const waiting = new Map();
let buffered = "";
let nextId = 0;
child.stdout.on("data", (chunk) => {
  buffered += chunk;
  for (let newline = buffered.indexOf("\n"); newline !== -1; newline = buffered.indexOf("\n")) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    const message = JSON.parse(line);
    if (message.method !== undefined && message.id !== undefined) {
      child.stdin.write(`${JSON.stringify({ id: message.id, error: { code: -32601, message: "not supported by the bench" } })}\n`);
    } else if (message.id !== undefined && waiting.has(message.id)) {
      waiting.get(message.id)(message);
      waiting.delete(message.id);
    }
  }
});
const exited = new Promise((resolve) => child.once("exit", resolve));

function request(method, params) {
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${method} got no answer within 60 s`)), 60_000);
    waiting.set(id, (message) => {
      clearTimeout(timer);
      resolve(message);
    });
    child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
  });
}

const withQuery = (value, query) =>
  typeof value === "string"
    ? value === "$QUERY"
      ? query
      : value
    : Array.isArray(value)
      ? value.map((v) => withQuery(v, query))
      : value && typeof value === "object"
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withQuery(v, query)]))
        : value;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function search() {
  const start = process.hrtime.bigint();
  const answer = await request(config.method, withQuery(config.params, config.query));
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (answer.error) throw new Error(`${config.method}: ${JSON.stringify(answer.error)}`);
  return { ms, files: answer.result.files.length, top: answer.result.files[0]?.path };
}

const result = {};
try {
  const hello = await request("initialize", config.initialize);
  if (hello.error) throw new Error(`initialize: ${JSON.stringify(hello.error)}`);
  child.stdin.write(`${JSON.stringify({ method: "initialized", params: {} })}\n`);
  await pause(config.settleMs);
  const first = await search();
  result.firstMs = first.ms;
  result.files = first.files;
  result.top = first.top;
  // A picker's user reads the first answer before typing on.
  await pause(config.pauseMs);
  result.repeatMs = [];
  for (let i = 0; i < config.repeats; i++) result.repeatMs.push((await search()).ms);
} catch (error) {
  result.error = error.message;
}
child.stdin.end();
const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
await exited;
clearTimeout(timer);
console.log(JSON.stringify(result));
