/** EIP-1559 fees of one signed transaction, in wei. */
export interface Fees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/** Nodes refuse a same-nonce replacement unless both fees rise by a margin (10 % in geth); 12.5 % clears it. */
const BUMP_PER_MILLE = 1125n;

function raised(value: bigint): bigint {
  return (value * BUMP_PER_MILLE + 999n) / 1000n;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** Fees of a first transaction: twice the estimate (room for base-fee growth), never above the cap. */
export function initialFees(estimate: Fees, cap: bigint): Fees {
  const maxFeePerGas = min(estimate.maxFeePerGas * 2n, cap);
  return { maxFeePerGas, maxPriorityFeePerGas: min(estimate.maxPriorityFeePerGas, maxFeePerGas) };
}

/**
 * Fees of a replacement: both raised by at least 12.5 % (rounded up) and to at least the current estimate,
 * capped at `cap`. Null when the cap leaves no room to raise both: the transaction can only wait.
 */
export function replacementFees(previous: Fees, estimate: Fees, cap: bigint): Fees | null {
  const maxFeePerGas = min(max(raised(previous.maxFeePerGas), estimate.maxFeePerGas), cap);
  const maxPriorityFeePerGas = min(
    max(raised(previous.maxPriorityFeePerGas), estimate.maxPriorityFeePerGas),
    maxFeePerGas,
  );
  if (maxFeePerGas <= previous.maxFeePerGas || maxPriorityFeePerGas <= previous.maxPriorityFeePerGas) {
    return null;
  }
  return { maxFeePerGas, maxPriorityFeePerGas };
}
