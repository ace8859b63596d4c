import { type ArgRule, NO_OPTION_LIMITS } from "./shell-options.js";

/**
 * One step of a recognized command form. The prefix grows by one word for
 * each step taken; it may end only at a step with `args`.
 */
export interface CommandNode {
  /** Fixed next words, each its own step. */
  readonly subcommands?: Readonly<Record<string, CommandNode>>;
  /** The next word is a name the project defines (an npm script, a make target); it joins the prefix. */
  readonly named?: CommandNode;
  /** The next word is another recognized program run through this one (npx); its prefix is appended. */
  readonly delegate?: readonly string[];
  /** Present when the prefix may end here: how the remaining words are checked. */
  readonly args?: ArgRule;
  /**
   * Words the program reads as its own commands though we give them no
   * prefix (vitest's init): refused anywhere after this step.
   */
  readonly reserved?: readonly string[];
}

export const anyArgs = (options = NO_OPTION_LIMITS, more: Partial<ArgRule> = {}): ArgRule => ({ positionals: true, options, ...more });

export const bareArgs = (options = NO_OPTION_LIMITS): ArgRule => ({ positionals: false, options });
export const leaf = (args: ArgRule): CommandNode => ({ args });
