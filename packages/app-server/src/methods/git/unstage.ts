import type { Handler } from "../../rpc/handler.js";
import { indexChange } from "../../workspace/diff-stage.js";

/** git/unstage: everything, a path or a staged hunk out of the index, with the checkout held. */
export const handler: Handler<"git/unstage"> = indexChange(true);
