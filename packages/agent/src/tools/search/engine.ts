import { findExecutable } from "../../util/executable.js";

export interface SearchToolOptions {
  /**
   * How grep and find search: "auto" (the default) runs rg or fd when the
   * PATH has them, else searches in this process with the same results;
   * "builtin" always searches in this process.
   */
  search?: "auto" | "builtin";
}

/** The program to run, or undefined to search in-process. */
export async function searchProgram(options: SearchToolOptions, names: readonly string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return options.search === "builtin" ? undefined : findExecutable(names, env);
}
