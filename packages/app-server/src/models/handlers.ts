import type { ThreadHandlers } from "../threads/thread-handler.js";
import { listModels } from "./list.js";

export const modelHandlers = {
  "model/list": listModels,
} satisfies ThreadHandlers;
