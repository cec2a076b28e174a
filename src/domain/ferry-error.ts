import { walkCauses } from './cause-walk.ts';

export type FerryErrorOptions<Details> = {
  /** What went wrong underneath (a driver's or viem's error, another Ferry error). */
  readonly cause?: unknown;
  /**
   * Whether the same operation, tried again unchanged, may succeed (an outage, a rate limit) or will fail the same
   * way (a refusal, a conflict, a revert): callers may branch on it instead of on each class.
   */
  readonly retryable: boolean;
} & (undefined extends Details ? { readonly details?: Details } : { readonly details: Details });

/**
 * The base of every error Ferry throws on purpose, modelled on viem's `BaseError` (`shortMessage`, `details`,
 * `cause`, `walk`) with ponder's split between retryable and non-retryable errors. Unlike viem's, the message is the
 * short message alone: it is what API bodies and log lines show.
 *
 * `details` says more than the message: the fields at fault for AppError, nothing (undefined) for most others.
 */
export abstract class FerryError<Details = string | undefined> extends Error {
  override name = 'FerryError';
  readonly shortMessage: string;
  readonly details: Details;
  readonly retryable: boolean;

  constructor(shortMessage: string, options: FerryErrorOptions<Details>) {
    super(shortMessage, options.cause === undefined ? undefined : { cause: options.cause });
    this.shortMessage = shortMessage;
    this.details = options.details as Details;
    this.retryable = options.retryable;
  }

  /** This error and its causes, through viem's errors too (walkCauses): the first one `predicate` accepts. */
  walk<T extends object>(predicate: (error: object) => error is T): T | null;
  walk(predicate: (error: object) => boolean): object | null;
  /** The deepest cause (this error when it has none). */
  walk(): object;
  walk(predicate?: (error: object) => boolean): object | null {
    return walkCauses(this, predicate);
  }
}

/**
 * Whether `error` may go otherwise when tried again: the `retryable` of the first FerryError among it and its
 * causes (walkCauses), so a Ferry error keeps its word even when a driver or a plain Error wraps it. Errors
 * outside the family say nothing: not retryable.
 */
export function isRetryable(error: unknown): boolean {
  const member = walkCauses(error, (e): e is FerryError<unknown> => e instanceof FerryError);
  return member?.retryable ?? false;
}
