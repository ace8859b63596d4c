/**
 * Git settings every command the tools run gets, in git's command scope
 * (`GIT_CONFIG_COUNT`), which outranks every configuration file and which
 * git honours for `safe.bareRepository`:
 *
 * - `safe.bareRepository=explicit`: a folder that merely looks like a bare
 *   repository (`HEAD`, `objects/`, `refs/`, a `config`) is not used unless a
 *   command names it with `--git-dir`. Otherwise files anyone can drop into a
 *   project would be a repository whose config runs commands on `git status`.
 * - `core.fsmonitor=false`: no repository config turns `git status` or
 *   `git diff` into a command of its choice.
 * - `core.pager=cat`, `GIT_PAGER` and `PAGER`: nothing waits on a pager that
 *   no one can quit, and no config names the pager program.
 *
 * A command line can still override them (`git -c`, `GIT_CONFIG_COUNT=0`);
 * such commands never get a prefix, so the user sees them first.
 */
export const GIT_GUARDS: readonly (readonly [key: string, value: string])[] = [
  ["safe.bareRepository", "explicit"],
  ["core.fsmonitor", "false"],
  ["core.pager", "cat"],
];

/**
 * `env` with git's guards added. Entries already in `GIT_CONFIG_COUNT` are
 * kept and ours come after them, so ours win where both set a key. A count
 * git would refuse ("bogus count") made every git command fail anyway, so
 * ours replace it.
 */
export function withGitGuards(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const guarded: NodeJS.ProcessEnv = { ...env, GIT_PAGER: "cat", PAGER: "cat" };
  const existing = /^[0-9]{1,6}$/.test(env.GIT_CONFIG_COUNT ?? "") ? Number(env.GIT_CONFIG_COUNT) : 0;
  GIT_GUARDS.forEach(([key, value], offset) => {
    guarded[`GIT_CONFIG_KEY_${existing + offset}`] = key;
    guarded[`GIT_CONFIG_VALUE_${existing + offset}`] = value;
  });
  guarded.GIT_CONFIG_COUNT = String(existing + GIT_GUARDS.length);
  return guarded;
}
