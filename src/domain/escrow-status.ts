/**
 * The escrow's record of an order on the input chain: FerryEscrow.orderStatus answers 0 None, 1 Active, 2 Settled,
 * 3 Refunded (its `Status` enum), here by name.
 */
export const ESCROW_STATUSES = ['none', 'active', 'settled', 'refunded'] as const;
export type EscrowStatus = (typeof ESCROW_STATUSES)[number];

/** FerryEscrow.orderStatus's answer by name; a code the escrow never answers reads as `none`. */
export function escrowStatusOf(code: number | bigint): EscrowStatus {
  return ESCROW_STATUSES[Number(code)] ?? 'none';
}
