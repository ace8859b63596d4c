import { StdioTransport, type ProtocolOutput } from "@knightcode/app-server/cli";
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
      await websocket.checkListenUrl(args.listen);
    } catch (error) {
      process.stderr.write(`knightcode: ${(error as Error).message}\n`);
      process.exit(2);
    }
  }
  if (websocket && args.listenReadyFile !== undefined) {
    const problem = websocket.readyFileProblem(args.listenReadyFile);
    if (problem) {
      process.stderr.write(`knightcode: ${problem}\n`);
      process.exit(2);
    }
  }
  // The token is the server's alone: no child process gets it, no read-only tool reads its file.
  // A Unix socket is hidden from sandboxed commands like the token file: they cannot even knock.
  const socket = args.listen?.startsWith("unix://") ? [args.listen.slice("unix://".length)] : [];
  const secrets = { values: token === undefined ? [] : [token], files: [...(args.listenTokenFile === undefined ? [] : [args.listenTokenFile]), ...socket] };
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
      if (args.listenReadyFile !== undefined) websocket.writeReadyFile(args.listenReadyFile, listener.url);
      process.stderr.write(`listening on ${listener.url}\n`);
    } catch (error) {
      process.stderr.write(`knightcode: cannot listen: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(2);
    }
  }
}
