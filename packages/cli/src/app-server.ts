import { StdioTransport, type ProtocolOutput } from "@knightcode/app-server/cli";
import { accessSync, constants, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { AppServerArgs } from "./args.js";
import { resolveListenToken, TOKEN_ENV } from "./listen-token.js";
import { startServer } from "./serve.js";


/** `knightcode app-server`: the stdio connection, optional WebSocket listener, signals and the exit. */
export async function runAppServer(args: AppServerArgs, output: ProtocolOutput): Promise<void> {
  const env = process.env;
  let token: string | undefined;
  if (args.listen !== undefined) {
    const outcome = resolveListenToken({ flag: args.listenToken, file: args.listenTokenFile, env: env[TOKEN_ENV] });
    if (!outcome.ok) {
      process.stderr.write(`knightcode: ${outcome.message}\n`);
      process.exit(2);
    }
    for (const warning of outcome.warnings) process.stderr.write(`knightcode: ${warning}\n`);
    token = outcome.token;
  }
  // Check the listen address before anything starts, so a bad one never leaves a half-running server.
  const websocket = args.listen === undefined ? undefined : await import("@knightcode/app-server/websocket");
  if (websocket && args.listen !== undefined) {
    try {
      websocket.parseListenUrl(args.listen);
    } catch (error) {
      process.stderr.write(`knightcode: ${(error as Error).message}\n`);
      process.exit(2);
    }
  }
  if (args.listenReadyFile !== undefined) {
    const problem = readyFileProblem(args.listenReadyFile);
    if (problem) {
      process.stderr.write(`knightcode: ${problem}\n`);
      process.exit(2);
    }
  }
  // The token is the server's alone: no child process gets it, no read-only tool reads its file.
  const secrets = { values: token === undefined ? [] : [token], files: args.listenTokenFile === undefined ? [] : [args.listenTokenFile] };
  const { server, shutdown } = startServer({ sessionDir: args.sessionDir, extensionPaths: args.extensions, env, secrets });

  const stdio = new StdioTransport({ input: process.stdin, output });
  server.connect(stdio, "stdio");
  stdio.onInputEnd(() => shutdown("stdin closed"));
  stdio.onClose((reason) => shutdown(reason ? `stdio connection aborted: ${reason.message}` : "stdio connection closed"));

  if (websocket && args.listen !== undefined) {
    try {
      const listener = await websocket.listenWebSocket({
        url: args.listen,
        token: token!,
        allowedOrigins: args.allowOrigins,
        onConnection: (transport) => server.connect(transport, "websocket"),
      });
      server.onStopInput(() => void listener.stop());
      if (args.listenReadyFile !== undefined) writeReadyFile(args.listenReadyFile, listener.url);
      process.stderr.write(`listening on ${listener.url}\n`);
    } catch (error) {
      process.stderr.write(`knightcode: cannot listen: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(2);
    }
  }
}

/**
 * Tells a waiting client where the listener is: `{url, pid}` written to a
 * temporary file beside `path` and renamed over it, so a reader never sees half.
 */
export function writeReadyFile(path: string, url: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify({ url, pid: process.pid }) + "\n", { mode: 0o600 });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new Error(`cannot write the ready file ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Why the ready file could not be written, checked before the server starts; undefined when it can. */
export function readyFileProblem(path: string): string | undefined {
  const dir = dirname(resolve(path));
  try {
    if (!statSync(dir).isDirectory()) return `cannot write the ready file ${path}: ${dir} is not a directory`;
    accessSync(dir, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? `${dir} does not exist` : code === "EACCES" ? `${dir} is not writable` : (error as Error).message;
    return `cannot write the ready file ${path}: ${why}`;
  }
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) return `cannot write the ready file ${path}: it is a directory`;
  // A file left by an earlier run must not be read as this one's address while it starts.
  rmSync(path, { force: true });
  return undefined;
}
