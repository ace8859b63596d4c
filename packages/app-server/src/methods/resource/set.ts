import { isAbsolute, join, resolve } from "node:path";
import { PROJECT_CONFIG_DIR } from "@knightcode/agent/settings/scope";
import { ResourceError, type ResourceSettings } from "@knightcode/agent/resources/types";
import { discoverResources } from "@knightcode/agent/resources/discover";
import { isWithin } from "@knightcode/system/fs/real-target";
import { planResourceToggle, type ToggleRequest } from "@knightcode/agent/resources/toggle";
import { readSettings } from "@knightcode/agent/settings/read";
import { threadDiscoveryOptions } from "@knightcode/agent/thread/thread-resources";
import { updateSettings } from "@knightcode/agent/settings/write";
import { rpcError } from "../../rpc/errors.js";
import { requireDirectory } from "../../threads/directory.js";
import type { Handler } from "../../rpc/handler.js";
import { mappingConfigErrors } from "../../config/errors.js";

/**
 * resource/set: a `+path` or `-path` entry in the settings of the scope that
 * defines the resource (in its package's filter for a package's). The
 * resource is looked up in what resource/list would answer; the list to
 * rewrite is read again under the file's lock, so a concurrent change to the
 * same list is kept.
 */
export const handler: Handler<"resource/set"> = async (params, ctx) => {
  const env = await ctx.services.environment();
  const cwd = params.cwd === undefined ? undefined : requireDirectory(params.cwd);
  if (!isAbsolute(params.path)) throw rpcError("invalidParams", `params.path must be an absolute path: ${params.path}`);
  const path = resolve(params.path);
  return mappingConfigErrors(async () => {
    const trusted = cwd !== undefined && env.trust.decisionFor(cwd) === true;
    const snapshot = readSettings({ agentDir: env.agentDir, ...(cwd === undefined ? {} : { cwd }), trust: trusted });
    const found = discoverResources(threadDiscoveryOptions(env, cwd, snapshot, trusted));
    const request: ToggleRequest = {
      resources: found.resources,
      type: params.type,
      path,
      enabled: params.enabled,
      settings: {
        global: snapshot.scopes.global.settings as ResourceSettings,
        project: trusted ? (snapshot.scopes.project?.settings as ResourceSettings) : undefined,
      },
      agentDir: env.agentDir,
      ...(cwd === undefined ? {} : { cwd }),
      projectTrusted: trusted,
    };
    let scope: "global" | "project";
    try {
      scope = planResourceToggle(request).scope;
    } catch (error) {
      // An untrusted project's own folder is never read, so its resources are unknown; say why.
      if (
        error instanceof ResourceError &&
        error.code === "unknownResource" &&
        cwd !== undefined &&
        !trusted &&
        isWithin(join(cwd, PROJECT_CONFIG_DIR), path)
      ) {
        throw new ResourceError("untrusted", `${path} belongs to ${cwd}, which is not a trusted project; trust it before switching its resources`, path);
      }
      throw error;
    }
    await updateSettings(
      { agentDir: env.agentDir, scope, ...(cwd === undefined ? {} : { cwd }), trust: env.trust },
      (doc) => {
        const plan = planResourceToggle({ ...request, settings: { ...request.settings, [scope]: doc as ResourceSettings } });
        doc[plan.key] = plan.value;
      },
      { signal: ctx.signal },
    );
    return {};
  });
};
