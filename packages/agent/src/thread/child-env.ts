import { envNames } from "../settings/kinds.js";
import { getPath } from "../settings/keys.js";
import type { SettingsSnapshot } from "../settings/read.js";
import { childEnvironment } from "@knightcode/system/process/child-env";
import type { ThreadEnvironment } from "./runtime-options.js";

/**
 * The environment of a program a thread starts now (a bash command, rg or
 * fd, an extension's exec): the server's, without its token and the keys
 * providers read (see childEnvironment), except what the global
 * `shellEnv.passThrough` names. Only the global setting counts: a project's
 * files cannot ask for the user's keys.
 */
export function threadChildEnv(environment: ThreadEnvironment, settings: SettingsSnapshot): NodeJS.ProcessEnv {
  const setting = getPath(settings.scopes.global.settings, ["shellEnv", "passThrough"]);
  return childEnvironment(environment.env, {
    withholdNames: environment.registry.keyEnvNames(),
    withholdValues: environment.secrets?.values ?? [],
    passThrough: setting.found && envNames.check(setting.value) ? setting.value : [],
  });
}
