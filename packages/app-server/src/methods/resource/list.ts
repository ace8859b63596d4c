import { discoverResources } from "@knightcode/agent/resources/discover";
import { readSettings } from "@knightcode/agent/settings/read";
import { threadDiscoveryOptions } from "@knightcode/agent/thread/thread-resources";
import type { Resource } from "@knightcode/agent/resources/types";
import type { ClientRequestResult } from "@knightcode/app-server-protocol";
import { requireDirectory } from "../../threads/directory.js";
import type { Handler } from "../../rpc/handler.js";
import { mappingConfigErrors } from "../../config/errors.js";

type ResourceInfo = ClientRequestResult<"resource/list">["resources"][number];

/** `-e` extensions are left out with the built-ins: always on, they are nobody's to switch. */
function listed(resource: Resource): resource is Resource & { scope: "global" | "project"; origin: ResourceInfo["origin"] } {
  return resource.scope !== "cli" && resource.origin !== "cli";
}

function info(resource: Resource & { scope: "global" | "project"; origin: ResourceInfo["origin"] }): ResourceInfo {
  const { type, path, name, enabled, scope, origin, source, description, shadowedBy } = resource;
  return {
    type,
    path,
    name,
    enabled,
    scope,
    origin,
    source,
    ...(description === undefined ? {} : { description }),
    ...(shadowedBy === undefined ? {} : { shadowedBy }),
  };
}

/**
 * resource/list: what a thread in cwd (or a project-less one) would find,
 * from the same settings read and discovery a thread load runs. Reads
 * files, writes none, installs nothing.
 */
export const handler: Handler<"resource/list"> = async (params, ctx) => {
  const env = await ctx.services.environment();
  const cwd = params.cwd === undefined ? undefined : requireDirectory(params.cwd);
  return mappingConfigErrors(() => {
    const trusted = cwd !== undefined && env.trust.decisionFor(cwd) === true;
    const snapshot = readSettings({ agentDir: env.agentDir, ...(cwd === undefined ? {} : { cwd }), trust: trusted });
    const found = discoverResources(threadDiscoveryOptions(env, cwd, snapshot, trusted));
    return { resources: found.resources.filter(listed).map(info) };
  });
};
