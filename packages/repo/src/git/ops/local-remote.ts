import { homedir } from "node:os";
import { resolve } from "node:path";
import { isWithin, realTarget } from "@knightcode/system/fs/real-target";
import { gitText } from "../run.js";
import { inRepo, type GitContext } from "./context.js";

/** A push that would land in a repository on this machine: git runs that repository's receive-pack here. */
export interface LocalPushTarget {
  remote: string;
  /** The receiving repositories, absolute and links resolved (a remote may have several push URLs). */
  paths: string[];
  /** Some of them lie inside the working tree being pushed from. */
  insideWorkTree: boolean;
}

/**
 * The receive-pack git runs in a receiving repository on this machine.
 * git passes no `-c` or `GIT_CONFIG_*` across a local transport, so these
 * ride on the command itself and outrank that repository's config: no
 * hook runs (`core.hooksPath` pointed at nothing), no command its config
 * names lists an alternate's refs, no collection starts afterwards, and a
 * push into its checked-out branch is refused rather than checked out
 * (which would run its filters).
 */
export const LOCAL_RECEIVE_PACK =
  "git -c core.hooksPath=/dev/null -c core.alternateRefsCommand=true -c core.fsmonitor=false -c receive.autogc=false -c receive.denyCurrentBranch=refuse -c receive.denyDeleteCurrent=refuse receive-pack";

/**
 * The local folder a remote URL names, as git decides it: a `file://` URL,
 * or a path that is neither `<scheme>://`, nor `<helper>::`, nor scp-like
 * `host:path` (a colon before any slash). Relative paths are taken from
 * `cwd`, where the push runs; `~/` is the home folder, as receive-pack
 * takes it. Undefined for a network remote.
 */
export function localRemotePath(url: string, cwd: string, home = homedir()): string | undefined {
  if (url.startsWith("file://")) return resolve(cwd, decodeURIComponentQuietly(url.slice("file://".length)));
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) || /^[A-Za-z0-9+.-]+::/.test(url)) return undefined;
  const colon = url.indexOf(":");
  const slash = url.indexOf("/");
  if (colon !== -1 && (slash === -1 || colon < slash)) return undefined;
  const path = url === "~" ? home : url.startsWith("~/") ? resolve(home, url.slice(2)) : url;
  return resolve(cwd, path);
}

function decodeURIComponentQuietly(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Where a push to `remote` lands when that is on this machine: every push
 * URL git would use (pushurl first, insteadOf and pushInsteadOf applied) is
 * local; undefined when none is. A remote whose push URLs mix local folders
 * and network remotes is refused by the caller: one receive-pack command
 * cannot serve both.
 */
export async function localPushTarget(ctx: GitContext, remote: string): Promise<LocalPushTarget | "mixed" | undefined> {
  const urls = (await gitText(["remote", "get-url", "--push", "--all", remote], inRepo(ctx))).split("\n").filter((line) => line !== "");
  const paths = urls.map((url) => localRemotePath(url, ctx.repo.root));
  const local = paths.filter((path): path is string => path !== undefined).map((path) => realTarget(path));
  if (local.length === 0) return undefined;
  if (local.length !== paths.length) return "mixed";
  const root = realTarget(ctx.repo.root);
  return { remote, paths: local, insideWorkTree: local.some((path) => isWithin(root, path)) };
}
