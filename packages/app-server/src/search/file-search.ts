import { childEnvironment } from "@knightcode/system/process/child-env";
import { readModelsFile } from "@knightcode/agent/models/models-json";
import type { ServerHost } from "../host/server-host.js";
import type { Services } from "../services/services.js";
import { FileSearch, type FileSearchLimits } from "./service.js";

const searches = new WeakMap<ServerHost, FileSearch>();

/**
 * The server's one FileSearch, made on the first search: it is shared by
 * every connection, and closes as shutdown begins, so that a search still
 * waiting answers shuttingDown at once and no fd outlives the server.
 */
export function fileSearchOf(server: ServerHost, services: Services): FileSearch {
  let search = searches.get(server);
  if (search) return search;
  const context = server.context;
  search = new FileSearch({
    env: () =>
      childEnvironment(context.env, {
        withholdNames: services.loadedRegistry?.keyEnvNames() ?? modelsFileKeyNames(context.agentDir, context.env),
        withholdValues: context.secrets.values,
      }),
    pathEnv: () => context.env,
    limits: limitsFromEnv(context.env),
    log: (message) => context.log.warn(message),
  });
  searches.set(server, search);
  const close = (): void => void search.close().catch((error: unknown) => context.log.error("stopping file searches failed", error));
  if (server.isShuttingDown) close();
  else server.onStopInput(close);
  context.onDispose(() => search.close());
  return search;
}

/** Before the registry exists, no extension has named a key variable: models.json is the only other source. */
function modelsFileKeyNames(agentDir: string, env: NodeJS.ProcessEnv): string[] {
  return readModelsFile(agentDir, env).providers.flatMap((provider) => (provider.apiKeyEnv === undefined ? [] : [provider.apiKeyEnv]));
}

/**
 * `KNIGHTCODE_FILE_SEARCH_MAX_PATHS`, for tests only: a smaller path cap,
 * so that a test can see a truncated listing without 200,000 files.
 */
function limitsFromEnv(env: NodeJS.ProcessEnv): Partial<FileSearchLimits> {
  const text = env.KNIGHTCODE_FILE_SEARCH_MAX_PATHS;
  return text !== undefined && /^[1-9][0-9]{0,8}$/.test(text) ? { maxPaths: Number(text) } : {};
}
