import { fieldError } from './app-error.ts';

const MAX_UINT256 = 2n ** 256n - 1n;
const DECIMAL_INTEGER = /^[1-9][0-9]{0,77}$/;

/**
 * Parses a token amount in base units. Only plain positive decimal integers that fit in a uint256 pass:
 * the escrow stores amounts as uint256, so anything larger could never settle.
 */
export function parseAmount(value: string, path: string): bigint {
  if (!DECIMAL_INTEGER.test(value)) {
    throw fieldError(
      'VALIDATION_ERROR',
      path,
      'must be a positive integer in base units, as a decimal string without sign, fraction or exponent',
    );
  }
  const amount = BigInt(value);
  if (amount > MAX_UINT256) throw fieldError('VALIDATION_ERROR', path, 'must not exceed 2^256-1');
  return amount;
}
