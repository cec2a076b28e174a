/** How fills are proven to an input chain's escrow (the chain registry's `messenger`). */
export type SettlementMethod = 'layerzero' | 'attester';

/**
 * Whether an order from a chain settling by `input` can be proven when filled on a chain settling by `output`.
 * A LayerZero escrow settles only what Ferry's app on the output chain proves with a LayerZero message, so the
 * output chain must run that app too. An attester escrow settles what the attester saw filled, which works on
 * any output chain (FerryApp records fills like FerryFill). Without a path the LP's fill could never be paid and
 * the offerer's funds would wait for the refund.
 */
export function hasSettlementPath(input: SettlementMethod, output: SettlementMethod): boolean {
  return input === 'attester' || output === 'layerzero';
}
