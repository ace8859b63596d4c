/** A request the checkout cannot serve as asked (a detached HEAD to push, an unknown branch, a bad name); the server answers invalidParams. */
export class GitRequestError extends Error {
  override readonly name = "GitRequestError";

  constructor(
    message: string,
    /** Why, for the answer's `data.reason`, when a client acts on it. */
    readonly reason?: string,
  ) {
    super(message);
  }
}

/**
 * A command refused after every check of ours passed: `git commit` (a
 * pre-commit or commit-msg hook said no, or git itself did: no author
 * identity) or `gh pr create` (a pull request exists already, no remote on
 * GitHub). `output` is what it printed.
 */
export class CommandRefusedError extends Error {
  override readonly name = "CommandRefusedError";

  constructor(
    message: string,
    readonly output: string,
  ) {
    super(message);
  }
}
