/** The most Ferry's protocol fee may be, in basis points of an order's input. */
export const MAX_PROTOCOL_FEE_BPS = 100;

/**
 * An order's protocol fee: `inputAmount × bps / 10000`, rounded down, in the input token's base units. The one rule
 * the API (typed data), the LP bot (pricing) and the docs share.
 */
export function protocolFeeOf(inputAmount: bigint, bps: number): bigint {
  return (inputAmount * BigInt(bps)) / 10_000n;
}
