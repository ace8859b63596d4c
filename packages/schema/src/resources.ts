// Kinds of resources the settings list.
import { type Static, Type } from "typebox";

export const ResourceType = Type.Union([Type.Literal("extensions"), Type.Literal("skills"), Type.Literal("prompts"), Type.Literal("themes")], {
  $id: "ResourceType",
  description: "The plural settings name of the resource's kind.",
});
export type ResourceType = Static<typeof ResourceType>;
