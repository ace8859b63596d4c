import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";

/**
 * The first of `names` found as an executable file on the PATH of `env`,
 * as an absolute path; undefined when none is.
 */
export async function findExecutable(names: readonly string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const dirs = (env.PATH ?? "").split(delimiter).filter((dir) => dir !== "" && isAbsolute(dir));
  for (const name of names) {
    for (const dir of dirs) {
      const candidate = join(dir, name);
      if (await isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
