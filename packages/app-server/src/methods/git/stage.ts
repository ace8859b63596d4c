import type { Handler } from "../../rpc/handler.js";
import { indexChange } from "../../workspace/diff-stage.js";

/** git/stage: everything, a path or an unstaged hunk into the index, with the checkout held. */
export const handler: Handler<"git/stage"> = indexChange(false);
