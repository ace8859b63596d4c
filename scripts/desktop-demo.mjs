#!/usr/bin/env node
// `knightcode desktop` with a scripted model, so the page can be tried
// without any key or network: a model on 127.0.0.1 answers every request
// (reading a file with a tool call when asked about one, otherwise a few
// streamed sentences), in a throwaway git project. Real providers stay:
// with a provider's key in the environment its models show in the picker.
// Ctrl-C stops the server and the model and removes the temporary folders.
//   npm run desktop:demo [-- --no-open] [-- --port 8765]
import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ScriptedModelServer } from "@knightcode/testkit";

const bin = fileURLToPath(new URL("../packages/cli/bin/knightcode.js", import.meta.url));
const passed = process.argv.slice(2);

const temp = mkdtempSync(join(tmpdir(), "knightcode-desktop-demo-"));
const agentDir = join(temp, "agent");
const project = join(temp, "demo-project");
mkdirSync(agentDir, { recursive: true });
mkdirSync(join(project, "src"), { recursive: true });

const files = {
  "README.md": "# Greeter\n\nA tiny project to try KnightCode on. `npm start` greets you.\n",
  "package.json": JSON.stringify({ name: "greeter", version: "1.0.0", type: "module", scripts: { start: "node src/index.js" } }, null, 2) + "\n",
  "src/index.js": 'import { greet } from "./greet.js";\n\nconsole.log(greet(process.argv[2] ?? "world"));\n',
  "src/greet.js": "/** The greeting for `name`. */\nexport function greet(name) {\n  return `Hello, ${name}!`;\n}\n",
  "TODO.md": "- [ ] greet in more than one language\n- [ ] add tests\n",
};
for (const [path, text] of Object.entries(files)) writeFileSync(join(project, path), text);
const git = (...args) =>
  execFileSync("git", args, {
    cwd: project,
    stdio: "ignore",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Demo",
      GIT_AUTHOR_EMAIL: "demo@knightcode.invalid",
      GIT_COMMITTER_NAME: "Demo",
      GIT_COMMITTER_EMAIL: "demo@knightcode.invalid",
    },
  });
git("init", "-q", "-b", "main");
git("add", ".");
git("commit", "-q", "-m", "Greeter: a first version");

/** The text of a chat message's content, whether a string or parts. */
function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (part && typeof part.text === "string" ? part.text : "")).join("");
  return "";
}

/** Splits text into word-sized pieces, so the reply visibly streams. */
function pieces(text) {
  return text.match(/\S+\s*/g) ?? [text];
}

let calls = 0;
/** A plausible reply to any request: a read when a project file is named, a summary after a tool, else prose. */
function reply(request) {
  const body = request.body;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const system = textOf(messages.find((m) => m.role === "system")?.content);
  const last = messages.at(-1) ?? {};
  const reasoning = String(body.model ?? "").includes("reasoner") ? "The user wants a quick answer about the demo project; keep it short." : undefined;
  const base = { reasoning, chunkDelayMs: 25, usage: { input: 400 + messages.length * 50, output: 60 } };
  if (system.startsWith("You write git commit messages")) {
    return { ...base, reasoning: undefined, text: pieces("Greeter: changes made in the desktop demo\n\nWritten by the scripted demo model.") };
  }
  if (last.role === "tool") {
    const result = textOf(last.content);
    const firstLine = result.split("\n").find((line) => line.trim() !== "") ?? "";
    return {
      ...base,
      text: pieces(
        `I read it: ${result.split("\n").length} lines, starting with "${firstLine.slice(0, 80)}". ` +
          "This is the scripted demo model, so that is all I can say about it; with a real provider's key in your environment, pick a real model for real work.",
      ),
    };
  }
  const asked = textOf(last.content);
  const named = Object.keys(files).find((path) => asked.includes(path) || asked.includes(path.split("/").pop()));
  if (named) {
    return {
      ...base,
      text: pieces(`Let me look at ${named}.`),
      toolCalls: [{ id: `call_demo_${++calls}`, name: "read", arguments: { path: named } }],
      finishReason: "tool_calls",
    };
  }
  return {
    ...base,
    text: pieces(
      "Hello from the KnightCode desktop demo. I am a scripted model running on your machine, so nothing leaves it. " +
        "Ask me about a file such as README.md or src/greet.js and I will read it with a tool call. " +
        "Everything else you see (threads, streaming, approvals, diffs) is the real app server.",
    ),
  };
}

const model = await ScriptedModelServer.start();
model.setFallback(reply);
const models = [{ id: "demo-model" }, { id: "demo-reasoner", reasoning: true }];
writeFileSync(join(agentDir, "models.json"), JSON.stringify(model.modelsJson({ provider: "demo", models })));
// The demo model is the default, not the only one: real providers with a key stay in the picker.
writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProvider: "demo", defaultModel: "demo-model" }));

let cleaned = false;
async function cleanUp() {
  if (cleaned) return;
  cleaned = true;
  await model.close().catch(() => {});
  rmSync(temp, { recursive: true, force: true });
}

process.stderr.write(`desktop demo: project ${project}, scripted model on ${model.baseUrl}\n`);
const desktop = spawn(process.execPath, [bin, "desktop", ...passed], {
  cwd: project,
  env: { ...process.env, KNIGHTCODE_CODING_AGENT_DIR: agentDir },
  stdio: ["ignore", "inherit", "inherit"],
});
// Ctrl-C reaches the server too (same terminal); it shuts down and the demo cleans up after it.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    if (desktop.exitCode === null) desktop.kill(signal);
  });
}
desktop.on("error", async (error) => {
  process.stderr.write(`desktop demo: cannot start knightcode: ${error.message}\n`);
  await cleanUp();
  process.exit(1);
});
desktop.on("exit", async (code, signal) => {
  await cleanUp();
  process.exit(code ?? (signal ? 0 : 1));
});
