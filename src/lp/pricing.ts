/** The largest spread the bot accepts: 100% would quote nothing. */
export const MAX_SPREAD_BPS = 9_999;

/**
 * The output a liquidity provider offers for `inputAmount`, 1:1 in value less `spreadBps` basis points:
 * inputAmount × (10000 − spread) / 10000, rescaled from the input token's decimals to the output token's.
 * bigint throughout, rounded down (in the provider's favour). Stablecoin-only: no price feed.
 */
export function quoteOutputAmount(
  inputAmount: bigint,
  spreadBps: number,
  decimals: { input: number; output: number },
): bigint {
  if (!Number.isInteger(spreadBps) || spreadBps < 0 || spreadBps > MAX_SPREAD_BPS) {
    throw new RangeError(`spreadBps must be an integer from 0 to ${MAX_SPREAD_BPS}`);
  }
  for (const d of [decimals.input, decimals.output]) {
    if (!Number.isInteger(d) || d < 0 || d > 77) throw new RangeError(`bad token decimals ${d}`);
  }
  if (inputAmount <= 0n) return 0n;
  const numerator = inputAmount * BigInt(10_000 - spreadBps) * 10n ** BigInt(decimals.output);
  return numerator / (10_000n * 10n ** BigInt(decimals.input));
}
