import { parseSlashInput } from "@knightcode/agent/resources/templates";
import type { CommandInfo } from "@knightcode/agent/resources/commands";
import type { ClientRequestResult } from "@knightcode/app-server-protocol";
import type { RequestContext } from "../rpc/handler.js";
import { rpcError } from "../rpc/errors.js";
import type { LoadedThread } from "../threads/loaded-thread.js";
import type { ThreadManager } from "../threads/manager.js";

/**
 * The server's own slash commands, the ones that work on desktop. They run
 * before extension commands and shadow one of the same name. The
 * terminal's own (usage, llama, undo) are not offered here.
 */
export const BUILTIN_COMMANDS = [
  { name: "compact", description: "Summarize older history now, as a turn of its own, to free context" },
  { name: "new", description: "Start a new thread in this project with the same model, thinking level and approval mode" },
  { name: "plan", description: "Plan before changing anything: only read-only tools run until you approve a plan (/plan off leaves plan mode)" },
  { name: "reload", description: "Reload extensions, settings, prompt templates and skills" },
] as const satisfies readonly CommandInfo[];

type BuiltinName = (typeof BUILTIN_COMMANDS)[number]["name"];

/** The built-in command `text` names, if any. */
export function builtinCommandOf(text: string): { name: BuiltinName; args: string } | undefined {
  const slash = parseSlashInput(text);
  const builtin = BUILTIN_COMMANDS.find((command) => command.name === slash?.name);
  return builtin && slash ? { name: builtin.name, args: slash.args } : undefined;
}

/** A thread's commands with the built-ins added (a built-in wins a shared name), sorted by name. */
export function withBuiltins(commands: readonly CommandInfo[]): CommandInfo[] {
  const byName = new Map<string, CommandInfo>(commands.map((command) => [command.name, command]));
  for (const builtin of BUILTIN_COMMANDS) byName.set(builtin.name, { ...builtin });
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * A built-in command only turn/start runs: queued or steering input is
 * refused rather than sent to the model as text, since a reload or a new
 * thread must not land behind or inside a turn.
 */
export function refuseBuiltin(text: string, method: string): void {
  const builtin = builtinCommandOf(text);
  if (builtin) throw rpcError("invalidParams", `params.text: /${builtin.name} runs only through turn/start, not ${method}`);
}

/**
 * turn/start with a built-in command. `/reload` and `/new` answer handled
 * and start no turn (`/new` with the new thread's id); `/compact` starts a
 * compaction turn. Each waits for an exclusive change and is refused with
 * turnInProgress while a turn runs; the caller subscribes as for any start.
 */
export async function runBuiltinCommand(
  command: { name: BuiltinName; args: string },
  thread: LoadedThread,
  meta: { requestId?: string },
  ctx: RequestContext,
  threads: ThreadManager,
): Promise<ClientRequestResult<"turn/start">> {
  if (command.name !== "plan" && command.args !== "") throw rpcError("invalidParams", `params.text: /${command.name} takes no arguments`);
  const answer = (status: "started" | "handled", threadId: string) => ({ status, threadId, ...(meta.requestId ? { requestId: meta.requestId } : {}) });
  thread.lastInitiator = ctx.connection;
  switch (command.name) {
    case "reload":
      await thread.reload(ctx.connection);
      return answer("handled", thread.id);
    case "new": {
      const fresh = await thread.turns.exclusive(() => {
        thread.subscribe(ctx.connection);
        return threads.replace(thread);
      });
      return answer("handled", fresh.id);
    }
    case "compact":
      await thread.turns.compact(() => thread.subscribe(ctx.connection), meta.requestId ? { requestId: meta.requestId } : {});
      return answer("started", thread.id);
    case "plan":
      // A task after /plan is turn/start's to run (planTask); here only the switch.
      thread.subscribe(ctx.connection);
      thread.setPlanMode(command.args !== "off");
      return answer("handled", thread.id);
  }
}

/**
 * `/plan <task>`: the task, which starts a turn in plan mode; undefined for
 * `/plan` and `/plan off`, which only switch it.
 */
export function planTask(command: { name: BuiltinName; args: string }): string | undefined {
  return command.name === "plan" && command.args !== "" && command.args !== "off" ? command.args : undefined;
}
