import { isRetryable } from '../domain/ferry-error.ts';

/** sysexits.h's EX_TEMPFAIL: the command failed, and the same command run again later may succeed. */
export const EXIT_RETRYABLE = 75;
/** Any other failure: running it again unchanged fails the same way. */
export const EXIT_FAILURE = 1;

/** The exit code of a command or process that ends on `error` (75 when retryable, else 1). */
export function exitCodeFor(error: unknown): number {
  return isRetryable(error) ? EXIT_RETRYABLE : EXIT_FAILURE;
}
