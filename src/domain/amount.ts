import { fieldError } from './app-error.ts';

export const MAX_UINT256 = 2n ** 256n - 1n;
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

/**
 * Whether `output` (in `outputDecimals`) exceeds `input` (in `inputDecimals`) by more than `premiumBps` basis
 * points, once both are on the same scale. Exact: output · 10^inDec · 10^4 > input · (10^4 + bps) · 10^outDec, so
 * nothing is rounded away, whatever the decimals.
 */
export function exceedsPremium(
  input: { amount: bigint; decimals: number },
  output: { amount: bigint; decimals: number },
  premiumBps: number,
): boolean {
  const scaledOutput = output.amount * 10n ** BigInt(input.decimals) * 10_000n;
  const ceiling = input.amount * (10_000n + BigInt(premiumBps)) * 10n ** BigInt(output.decimals);
  return scaledOutput > ceiling;
}
