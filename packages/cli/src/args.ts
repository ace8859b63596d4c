export const USAGE = `Usage:
  knightcode app-server [options]    serve JSON-RPC on stdin/stdout
  knightcode desktop [options]       serve the desktop web page and open it in a browser
  knightcode --version               print the version
  knightcode --help                  print this help

app-server options:
  -e, --extension <path>     load an extension in every thread (repeatable, explicitly trusted)
  --session-dir <dir>        keep session files here instead of the per-project layout
  --listen <url>             also accept WebSocket connections, on ws://127.0.0.1:<port>
                             (0: a free port) or on a Unix socket, unix://<path>, in a
                             folder only you can write (created 0700 when missing)
  --listen-token-file <path> read the bearer token WebSocket clients must send from
                             this file (mode 0600, owned by you; one line)
  --listen-token <token>     the token on the command line: other local users can
                             see it in ps, so prefer the file or the environment
  --allow-origin <origin>    a browser Origin allowed to connect (repeatable)
  --listen-ready-file <path> once listening, write {"url","pid"} as JSON to this
                             file (atomically: a reader sees all of it or none), in
                             a folder nobody else can change (yours, or sticky)
  -h, --help                 print this help

desktop options:
  --port <port>              listen on 127.0.0.1:<port> (default: a free port)
  --no-open                  print the URL but do not open a browser (the browser is
                             opened on a private launcher file, never on the token)
  -e, --extension <path>     as for app-server
  --session-dir <dir>        as for app-server
  --listen-token-file <path> keep the token in this file (mode 0600) instead of a
                             fresh one, so a reloaded page can reconnect after a restart
  --ready-file <path>        once listening, write {"url","pid"} as JSON to this file

With --listen, the token comes from --listen-token-file or --listen-token (not
both), else from KNIGHTCODE_APP_SERVER_TOKEN. It must have at least 32
characters; make one with: openssl rand -hex 32
`;

export interface AppServerArgs {
  extensions: string[];
  sessionDir?: string;
  listen?: string;
  listenToken?: string;
  listenTokenFile?: string;
  allowOrigins: string[];
  listenReadyFile?: string;
}

export type Command =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "app-server"; args: AppServerArgs }
  | { kind: "desktop"; args: DesktopArgs }
  | { kind: "usage-error"; message: string };

export interface DesktopArgs {
  extensions: string[];
  sessionDir?: string;
  /** 0 picks a free port. */
  port: number;
  open: boolean;
  listenTokenFile?: string;
  readyFile?: string;
}

const VALUE_FLAGS: Record<string, keyof AppServerArgs> = {
  "-e": "extensions",
  "--extension": "extensions",
  "--session-dir": "sessionDir",
  "--listen": "listen",
  "--listen-token": "listenToken",
  "--listen-token-file": "listenTokenFile",
  "--allow-origin": "allowOrigins",
  "--listen-ready-file": "listenReadyFile",
};

export function parseCommand(argv: readonly string[]): Command {
  const [first, ...rest] = argv;
  if (first === undefined) return { kind: "usage-error", message: "a command is required" };
  if (first === "--help" || first === "-h" || first === "help") return { kind: "help" };
  if (first === "--version" || first === "-v" || first === "version") return { kind: "version" };
  if (first === "desktop") return parseDesktop(rest);
  if (first !== "app-server") return { kind: "usage-error", message: `unknown command ${JSON.stringify(first)}` };
  const args: AppServerArgs = { extensions: [], allowOrigins: [] };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--help" || arg === "-h") return { kind: "help" };
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const field = VALUE_FLAGS[flag];
    if (!field) {
      return { kind: "usage-error", message: arg.startsWith("-") ? `unknown option ${flag}` : `unexpected argument ${JSON.stringify(arg)}` };
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else value = rest[++i];
    if (value === undefined || value === "") return { kind: "usage-error", message: `${flag} needs a value` };
    if (field === "extensions" || field === "allowOrigins") args[field].push(value);
    else args[field] = value;
  }
  if (args.listenReadyFile !== undefined && args.listen === undefined) {
    return { kind: "usage-error", message: "--listen-ready-file needs --listen" };
  }
  return { kind: "app-server", args };
}

const DESKTOP_VALUE_FLAGS: Record<string, "extensions" | "sessionDir" | "port" | "listenTokenFile" | "readyFile"> = {
  "-e": "extensions",
  "--extension": "extensions",
  "--session-dir": "sessionDir",
  "--port": "port",
  "--listen-token-file": "listenTokenFile",
  "--ready-file": "readyFile",
};

function parseDesktop(rest: readonly string[]): Command {
  const args: DesktopArgs = { extensions: [], port: 0, open: true };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--help" || arg === "-h") return { kind: "help" };
    if (arg === "--no-open") {
      args.open = false;
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const field = DESKTOP_VALUE_FLAGS[flag];
    if (!field) {
      return { kind: "usage-error", message: arg.startsWith("-") ? `unknown option ${flag}` : `unexpected argument ${JSON.stringify(arg)}` };
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : rest[++i];
    if (value === undefined || value === "") return { kind: "usage-error", message: `${flag} needs a value` };
    if (field === "extensions") args.extensions.push(value);
    else if (field === "port") {
      if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) return { kind: "usage-error", message: `--port takes a number from 0 to 65535, not ${JSON.stringify(value)}` };
      args.port = Number(value);
    } else args[field] = value;
  }
  return { kind: "desktop", args };
}
