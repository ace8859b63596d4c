// Slash commands.
import { type Static, Type } from "typebox";
import { Closed } from "./common.js";

export const CommandInfo = Type.Object(
  {
    name: Type.String({ description: "Without the leading slash; a skill as skill:<name>." }),
    description: Type.String(),
  },
  { ...Closed, $id: "CommandInfo" },
);
export type CommandInfo = Static<typeof CommandInfo>;
