import { Type } from "typebox";
import { Closed } from "./common.js";
import { request } from "./define.js";
import { CommandInfo } from "@knightcode/schema/commands";

export const commands = {
  clientRequests: {
    "command/list": request({
      params: Type.Object(
        {
          threadId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "A thread's commands; give this or cwd." })),
          cwd: Type.Optional(
            Type.String({ minLength: 1, maxLength: 4096, description: "An existing directory: what a new thread there would offer. Give this or threadId." }),
          ),
        },
        Closed,
      ),
      result: Type.Object({ commands: Type.Array(CommandInfo, { description: "Sorted by name." }) }, Closed),
      errors: ["threadNotFound"],
      doc: "The slash commands a thread offers: the built-in ones that work on desktop, extension commands, prompt templates and skills. A saved thread that is not loaded, or a cwd, is listed from a session built in memory: no extension starts and nothing is written.",
    }),
  },
} as const;
