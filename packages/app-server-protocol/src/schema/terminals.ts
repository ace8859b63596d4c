import { Type } from "typebox";
import { Closed, EmptyObject } from "./common.js";
import { notification, request } from "./define.js";

const ThreadId = Type.String({ description: "The thread whose folder the command runs in, and which owns its processes." });
const ProcessId = Type.String({ minLength: 1, maxLength: 128, description: "The process command/exec answered." });
/** Bytes on the wire: a terminal's output may end in the middle of a UTF-8 sequence, so it is never decoded on the way. */
const Base64 = (description: string, maxLength?: number) =>
  Type.String({ pattern: "^[A-Za-z0-9+/]*={0,2}$", ...(maxLength === undefined ? {} : { maxLength }), description });
const Cols = (description = "The terminal's width in columns.") => Type.Integer({ minimum: 2, maximum: 1000, description });
const Rows = (description = "The terminal's height in rows.") => Type.Integer({ minimum: 1, maximum: 1000, description });

const TERMINALS = "Beyond the spec; see docs/terminals.md.";

export const TerminalProcess = Type.Object(
  {
    processId: ProcessId,
    command: Type.String({ description: "The command line as given." }),
    cwd: Type.String({ description: "The absolute folder it runs in." }),
    tty: Type.Boolean({ description: "Whether it runs on a terminal." }),
    startedAt: Type.Integer({ description: "When it started, in Unix milliseconds." }),
  },
  { ...Closed, $id: "TerminalProcess" },
);

export const terminals = {
  clientRequests: {
    "command/exec": request({
      params: Type.Object(
        {
          threadId: ThreadId,
          command: Type.String({ minLength: 1, maxLength: 65536, description: "A shell line, run with bash -c as the bash tool runs one." }),
          tty: Type.Optional(Type.Boolean({ description: "Run it on a new pseudo-terminal (stdin, stdout and stderr all on it); false by default." })),
          cols: Type.Optional(Cols("With tty: the terminal's width; 80 by default.")),
          rows: Type.Optional(Rows("With tty: the terminal's height; 24 by default.")),
          cwd: Type.Optional(
            Type.String({
              maxLength: 4096,
              description: "A folder relative to the thread's folder (the thread's folder by default); one outside it, links resolved, is invalidParams.",
            }),
          ),
        },
        Closed,
      ),
      result: Type.Object({ processId: ProcessId }, Closed),
      errors: ["threadNotFound", "toolMissing"],
      doc: `${TERMINALS} Runs a command for the client (not the model) in the thread's folder, through the thread's sandbox as the bash tool's commands run, without approval; answers at once. Its output comes as command/exec/outputDelta and its end as command/exec/exited, to the thread's subscribers (the caller subscribes). invalidParams past terminals.maxPerThread, for a cwd outside the thread's folder, or cols/rows without tty; toolMissing (data.tool "node-pty") for tty where terminals cannot be made here, or (data.tool "sandbox") when the sandbox is required and cannot run.`,
    }),
    "command/exec/write": request({
      params: Type.Object(
        {
          threadId: ThreadId,
          processId: ProcessId,
          data: Base64("Bytes for its stdin (or the terminal's input), base64; may be empty.", 1398104),
          closeStdin: Type.Optional(
            Type.Boolean({ description: "After data, close its stdin (on a terminal: type the end-of-file character, ^D, as a user would)." }),
          ),
        },
        Closed,
      ),
      result: EmptyObject,
      errors: ["threadNotFound"],
      doc: `${TERMINALS} Writes to a running command's input. An unknown or finished process, or a stdin already closed, is invalidParams.`,
    }),
    "command/exec/resize": request({
      params: Type.Object({ threadId: ThreadId, processId: ProcessId, cols: Cols(), rows: Rows() }, Closed),
      result: EmptyObject,
      errors: ["threadNotFound"],
      doc: `${TERMINALS} Resizes a running command's terminal (its programs get SIGWINCH). A command without a terminal, or an unknown or finished process, is invalidParams.`,
    }),
    "command/exec/terminate": request({
      params: Type.Object({ threadId: ThreadId, processId: ProcessId }, Closed),
      result: EmptyObject,
      errors: ["threadNotFound"],
      doc: `${TERMINALS} Stops a running command and every process it started (SIGTERM, SIGKILL a second later); command/exec/exited follows. An unknown or finished process is invalidParams.`,
    }),
    "command/exec/list": request({
      params: Type.Object({ threadId: ThreadId }, Closed),
      result: Type.Object({ processes: Type.Array(TerminalProcess, { description: "Oldest first." }) }, Closed),
      errors: ["threadNotFound"],
      doc: `${TERMINALS} The thread's commands still running, for a client that reconnects.`,
    }),
  },
  serverNotifications: {
    "command/exec/outputDelta": notification({
      params: Type.Object(
        {
          threadId: ThreadId,
          processId: ProcessId,
          stream: Type.Union([Type.Literal("stdout"), Type.Literal("stderr"), Type.Literal("pty")], {
            description: "Which output: pty for a command on a terminal.",
          }),
          data: Base64("The bytes, base64, as the command wrote them: a UTF-8 character may be split between two deltas."),
        },
        Closed,
      ),
      doc: `${TERMINALS} Output of a command/exec process, in order, to the thread's subscribers.`,
    }),
    "command/exec/exited": notification({
      params: Type.Object(
        {
          threadId: ThreadId,
          processId: ProcessId,
          exitCode: Type.Union([Type.Integer(), Type.Null()], { description: "Null when a signal ended it." }),
          signal: Type.Union([Type.String(), Type.Null()], { description: "The signal that ended it (SIGTERM, SIGKILL), or null." }),
          truncated: Type.Boolean({ description: "Its output reached terminals.maxOutputBytes: the deltas stop there, and the process was stopped." }),
        },
        Closed,
      ),
      doc: `${TERMINALS} A command/exec process ended, after its last outputDelta; its processId is unknown from then on.`,
    }),
  },
} as const;
