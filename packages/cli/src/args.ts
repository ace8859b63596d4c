import { parseArgs, type ParseArgsConfig } from "node:util";

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig["options"]>;

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

/** The options of each command, in `parseArgs`'s terms; `help` stops parsing where it is met. */
const APP_SERVER_OPTIONS = {
  extension: { type: "string", short: "e", multiple: true },
  "session-dir": { type: "string" },
  listen: { type: "string" },
  "listen-token": { type: "string" },
  "listen-token-file": { type: "string" },
  "allow-origin": { type: "string", multiple: true },
  "listen-ready-file": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsOptionsConfig;

const DESKTOP_OPTIONS = {
  extension: { type: "string", short: "e", multiple: true },
  "session-dir": { type: "string" },
  port: { type: "string" },
  "no-open": { type: "boolean" },
  "listen-token-file": { type: "string" },
  "ready-file": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsOptionsConfig;

export function parseCommand(argv: readonly string[]): Command {
  const [first, ...rest] = argv;
  if (first === undefined) return { kind: "usage-error", message: "a command is required" };
  if (first === "--help" || first === "-h" || first === "help") return { kind: "help" };
  if (first === "--version" || first === "-v" || first === "version") return { kind: "version" };
  if (first === "desktop") return parseDesktop(rest);
  if (first !== "app-server") return { kind: "usage-error", message: `unknown command ${JSON.stringify(first)}` };
  return parseAppServer(rest);
}

type Parsed<T extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ options: T; strict: true; allowPositionals: false }>>["values"];

/**
 * `parseArgs` splits the words (`--flag value`, `--flag=value`, `-e value`),
 * leniently so that its tokens come back in order: the first problem is
 * reported in our words, and `--help` wins only if nothing before it was wrong.
 */
function parseOptions<T extends ParseArgsOptionsConfig>(args: readonly string[], options: T): { values: Parsed<T> } | { help: true } | { error: string } {
  const { values, tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === "option-terminator") return { error: "unknown option --" };
    if (token.kind === "positional") {
      return { error: token.value.startsWith("-") ? `unknown option ${token.value}` : `unexpected argument ${JSON.stringify(token.value)}` };
    }
    const option = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (option === undefined) return { error: `unknown option ${token.rawName}` };
    if (option.type === "boolean") {
      if (token.inlineValue) return { error: `unknown option ${token.rawName}` };
      if (token.name === "help") return { help: true };
    } else if (token.value === undefined || token.value === "") {
      return { error: `${token.rawName} needs a value` };
    }
  }
  return { values: values as Parsed<T> };
}

function parseAppServer(rest: readonly string[]): Command {
  const parsed = parseOptions(rest, APP_SERVER_OPTIONS);
  if ("help" in parsed) return { kind: "help" };
  if ("error" in parsed) return { kind: "usage-error", message: parsed.error };
  const values = parsed.values;
  const args: AppServerArgs = {
    extensions: values.extension ?? [],
    ...(values["session-dir"] !== undefined ? { sessionDir: values["session-dir"] } : {}),
    ...(values.listen !== undefined ? { listen: values.listen } : {}),
    ...(values["listen-token"] !== undefined ? { listenToken: values["listen-token"] } : {}),
    ...(values["listen-token-file"] !== undefined ? { listenTokenFile: values["listen-token-file"] } : {}),
    allowOrigins: values["allow-origin"] ?? [],
    ...(values["listen-ready-file"] !== undefined ? { listenReadyFile: values["listen-ready-file"] } : {}),
  };
  if (args.listenReadyFile !== undefined && args.listen === undefined) {
    return { kind: "usage-error", message: "--listen-ready-file needs --listen" };
  }
  return { kind: "app-server", args };
}

function parseDesktop(rest: readonly string[]): Command {
  const parsed = parseOptions(rest, DESKTOP_OPTIONS);
  if ("help" in parsed) return { kind: "help" };
  if ("error" in parsed) return { kind: "usage-error", message: parsed.error };
  const values = parsed.values;
  const port = values.port ?? "0";
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535)
    return { kind: "usage-error", message: `--port takes a number from 0 to 65535, not ${JSON.stringify(port)}` };
  const args: DesktopArgs = {
    extensions: values.extension ?? [],
    port: Number(port),
    open: values["no-open"] !== true,
    ...(values["session-dir"] !== undefined ? { sessionDir: values["session-dir"] } : {}),
    ...(values["listen-token-file"] !== undefined ? { listenTokenFile: values["listen-token-file"] } : {}),
    ...(values["ready-file"] !== undefined ? { readyFile: values["ready-file"] } : {}),
  };
  return { kind: "desktop", args };
}
