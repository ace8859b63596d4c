import { recognized } from "./shell-corpus-recognized.js";
import { gitForms, packageManagers, toolForms, unknownAndInterpreters } from "./shell-corpus-programs.js";
import {
  chainingAndRedirection,
  emptyAndLong,
  quotingAndEscapes,
  substitutionAndExpansion,
  unicodeAndControl,
  wrappersAndAssignments,
} from "./shell-corpus-syntax.js";

/**
 * Commands written to attack the prefix rule, each with the prefix it must
 * yield (words joined by one space) or null for none, grouped by the trick
 * they try.
 */
export type CorpusRow = readonly [command: string, expected: string | null];

export const CORPUS: readonly CorpusRow[] = [
  ...recognized,
  ...gitForms,
  ...packageManagers,
  ...toolForms,
  ...unknownAndInterpreters,
  ...wrappersAndAssignments,
  ...chainingAndRedirection,
  ...substitutionAndExpansion,
  ...quotingAndEscapes,
  ...unicodeAndControl,
  ...emptyAndLong,
];

/** PowerShell: nothing is analyzed, every row is refused. */
export const POWERSHELL_CORPUS: readonly string[] = [
  "Get-ChildItem",
  "Get-ChildItem -Path src",
  "git status",
  "dir",
  "ls",
  "Get-Content a.txt; Remove-Item x",
  "& git status",
  "git status | Out-File x",
];
