import { protocolOutput } from "./guard.js";
import { parseCommand, USAGE } from "./args.js";

async function main(): Promise<void> {
  const command = parseCommand(process.argv.slice(2));
  switch (command.kind) {
    case "help":
      process.stderr.write(USAGE);
      return;
    case "version": {
      const { serverVersion } = await import("@knightcode/app-server");
      protocolOutput.write(`knightcode ${serverVersion()}\n`);
      return;
    }
    case "usage-error":
      process.stderr.write(`knightcode: ${command.message}\n\n${USAGE}`);
      process.exitCode = 2;
      return;
    case "app-server": {
      const { runAppServer } = await import("./app-server.js");
      await runAppServer(command.args, protocolOutput);
      return;
    }
    case "desktop": {
      const { runDesktop } = await import("./desktop.js");
      await runDesktop(command.args, protocolOutput);
      return;
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`knightcode: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
