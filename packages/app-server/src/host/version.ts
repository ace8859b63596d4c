import packageJson from "../../package.json" with { type: "json" };

export const SERVER_NAME = "knightcode-app-server";

/** This package's version: what `serverInfo.version` and `knightcode --version` report. */
export function serverVersion(): string {
  return packageJson.version;
}
