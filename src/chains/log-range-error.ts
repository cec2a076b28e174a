import { walkCauses } from '../domain/cause-walk.ts';
import { FerryError } from '../domain/ferry-error.ts';

/**
 * Public RPCs cap eth_getLogs by block span or by result count, each in its own words: "query returned more than
 * 10000 results", "block range is too large", "exceed maximum block range: 5000", "eth_getLogs is limited to a
 * 1000 block range", "Log response size exceeded". Any of these means: ask again for a smaller range.
 */
const RANGE_TOO_LARGE =
  /query returned more than|block range|range (is )?too (large|wide|big)|too many (blocks|results|logs)|exceed|limit/i;

/** JSON-RPC code several providers use for "limit exceeded". */
const LIMIT_EXCEEDED_CODE = -32005;

/**
 * True when an eth_getLogs failure is the RPC refusing the range (not an outage). Reads the RPC's own message
 * (viem's `details`), walking the error's causes; a dropped connection or a 5xx without such words is not one.
 */
export function isLogRangeTooLarge(error: unknown): boolean {
  const refusal = walkCauses(error, (e) => {
    const { code, details, message } = e as { code?: unknown; details?: unknown; message?: unknown };
    if (code === LIMIT_EXCEEDED_CODE) return true;
    const text = typeof details === 'string' ? details : typeof message === 'string' ? message : '';
    // viem's messages repeat the request body; only the RPC's own words count.
    return RANGE_TOO_LARGE.test(text.split('\nRequest body:')[0] ?? '');
  });
  return refusal !== null;
}

/**
 * An RPC refused an eth_getLogs range as too large; the scanner halves the range and asks again. Not retryable:
 * the same range is refused again.
 */
export class LogRangeTooLargeError extends FerryError {
  override readonly name = 'LogRangeTooLargeError';
  constructor(
    readonly chain: string,
    readonly fromBlock: bigint,
    readonly toBlock: bigint,
    options: { cause: unknown },
  ) {
    super(`chain ${chain}: the RPC refused eth_getLogs for blocks ${fromBlock}-${toBlock} as too large`, {
      cause: options.cause,
      retryable: false,
    });
  }
}
