/**
 * How deep any walk down an error's causes goes. viem nests three or four deep (a contract error around an RPC
 * error around an HTTP error); a bound keeps a cyclic or runaway chain from looping.
 */
export const MAX_CAUSE_DEPTH = 10;

/**
 * Ferry's one cause walker, for its own errors, viem's and any other `Error` alike (all keep what they wrap in the
 * standard `cause`). Visits the error, then its cause, its cause's cause…, stopping at the first value that is not
 * an object or after MAX_CAUSE_DEPTH of them. As viem's `BaseError.walk`: with a predicate, the first error it
 * accepts (or null); without, the deepest error reached.
 */
export function walkCauses<T extends object>(
  error: unknown,
  predicate: (error: object) => error is T,
): T | null;
export function walkCauses(error: unknown, predicate?: (error: object) => boolean): object | null;
export function walkCauses(error: unknown, predicate?: (error: object) => boolean): object | null {
  let current = error;
  let deepest: object | null = null;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    if (predicate?.(current)) return current;
    deepest = current;
    current = (current as { cause?: unknown }).cause;
  }
  return predicate ? null : deepest;
}
