import { homedir } from "node:os";
import type { Handler } from "../rpc/handler.js";
import { rpcError } from "../rpc/errors.js";
import { SERVER_NAME, serverVersion } from "../host/version.js";

function platformOs(): "linux" | "darwin" | "win32" {
  const os = process.platform;
  return os === "darwin" || os === "win32" ? os : "linux";
}

export const handler: Handler<"initialize"> = (params, ctx) => {
  if (ctx.connection.state !== "new") throw rpcError("invalidParams", "initialize was already sent on this connection");
  const capabilities = params.capabilities;
  ctx.connection.beginInitialize({ optOutNotifications: capabilities?.optOutNotifications ?? [], holdRequests: capabilities?.holdRequests === true });
  if (capabilities?.sequenced === true) ctx.connection.useSequence();
  if (capabilities?.subagents === true) ctx.connection.useSubagents();
  const name = params.clientInfo.name.slice(0, 100);
  ctx.log.info(`client ${JSON.stringify(name)} ${params.clientInfo.version ?? ""} connected`.trimEnd());
  return {
    serverInfo: { name: SERVER_NAME, version: serverVersion() },
    platform: { os: platformOs(), arch: process.arch, homeDir: homedir() },
  };
};
