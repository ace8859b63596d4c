import { analyzeShellCommand, formatPrefix } from "@knightcode/agent";
import type { ShellAnalyzer } from "./gate.js";

/** Shell commands and the prefixes a grant may cover (see docs/shell-prefixes.md). */
export const shellAnalyzer: ShellAnalyzer = {
  prefixOf: (command, shell) => analyzeShellCommand(command, shell).prefix,
  format: formatPrefix,
};
