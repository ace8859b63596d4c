import { EnvironmentsError } from "@knightcode/agent/environments/environments-file";
import { ResourceError } from "@knightcode/agent/resources/types";
import { SettingsError } from "@knightcode/agent/settings/errors";
import { TrustError } from "@knightcode/agent/trust/errors";
import { rpcError } from "../rpc/errors.js";
import { trustError } from "../trust/errors.js";

/**
 * Maps a failure of the settings, resources, environments or trust code to
 * the protocol's error: what the caller asked wrongly is invalidParams (with
 * `data.reason` for an untrusted project or a missing cwd), a stale version
 * is configConflict, and a broken file or the disk is internal. Anything
 * else passes through, and the dispatcher answers it internal.
 */
export function configError(error: unknown): unknown {
  if (error instanceof SettingsError) {
    const { code, data } = error;
    switch (code) {
      case "conflict":
        return rpcError("configConflict", error.message, { version: data.version });
      case "untrusted":
      case "missingCwd":
        return rpcError("invalidParams", error.message, { reason: code });
      case "invalidKey":
      case "invalidValue":
        return rpcError("invalidParams", error.message, data.key === undefined ? undefined : { key: data.key });
      case "corrupt":
      case "io":
        return rpcError("internal", error.message, data.path === undefined ? undefined : { path: data.path });
    }
  }
  if (error instanceof ResourceError) {
    return rpcError("invalidParams", error.message, error.code === "untrusted" ? { reason: "untrusted" } : undefined);
  }
  if (error instanceof EnvironmentsError) {
    switch (error.code) {
      case "invalid":
        return rpcError("invalidParams", error.message);
      case "untrusted":
        return rpcError("invalidParams", error.message, { reason: "untrusted" });
      case "corrupt":
      case "io":
        return rpcError("internal", error.message, error.path === undefined ? undefined : { path: error.path });
    }
  }
  if (error instanceof TrustError) return trustError(error);
  return error;
}

/** Runs `work`, answering its failures as configError maps them. */
export async function mappingConfigErrors<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw configError(error);
  }
}
