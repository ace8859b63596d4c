/**
 * A diff request that cannot be answered as asked: a commit or a ref that
 * does not resolve, no branch to compare with, a path outside the diff, a
 * combination of options the spec refuses. The server answers it
 * `invalidParams` with this message.
 */
export class DiffInputError extends Error {
  override readonly name = "DiffInputError";
}
