import { isAbsolute } from "node:path";
import { SettingsError } from "@knightcode/agent/settings/errors";
import { writeSetting } from "@knightcode/agent/settings/write";
import { rpcError } from "../../rpc/errors.js";
import type { Handler } from "../../rpc/handler.js";
import { configError } from "../../config/errors.js";

/**
 * config/write: one key of one scope's file, through the settings engine's
 * per-file queue and cross-process lock. The schema leaves `scope` and
 * `value` open so that these refusals can name the key.
 */
export const handler: Handler<"config/write"> = async (params, ctx) => {
  const { scope, key } = params;
  const refuse = (why: string, data?: Record<string, unknown>) => rpcError("invalidParams", `config/write of ${JSON.stringify(key)}: ${why}`, { key, ...data });
  if (scope !== "global" && scope !== "project") throw refuse(`scope must be "global" or "project", not ${JSON.stringify(scope)}`);
  if (!Object.hasOwn(params, "value")) throw refuse("value is missing; send null to delete the key");
  if (scope === "project" && params.cwd !== undefined && !isAbsolute(params.cwd)) {
    throw refuse(`params.cwd must be an absolute path: ${params.cwd}`, { reason: "missingCwd" });
  }
  const trust = await ctx.services.trust();
  try {
    return await writeSetting({
      agentDir: ctx.context.agentDir,
      scope,
      key,
      value: params.value,
      // The global file is the same whatever folder a client is in.
      ...(scope === "project" && params.cwd !== undefined ? { cwd: params.cwd } : {}),
      ...(params.expectedVersion === undefined ? {} : { expectedVersion: params.expectedVersion }),
      trust,
      signal: ctx.signal,
    });
  } catch (error) {
    // Every refusal of the key or its value says which key it was about, an empty one included.
    const aboutKey = error instanceof SettingsError && (error.code === "invalidKey" || error.code === "invalidValue");
    if (aboutKey && (key === "" || !error.message.includes(key))) throw refuse(error.message);
    throw configError(error);
  }
};
