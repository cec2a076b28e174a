/**
 * What one order costs in gas all in, from the receipts of its steps. Scenario 12 measures each step (lz-gas.ts);
 * scenario 13 sums whole blocks (batched-proofs.ts). A message proving a batch of fills is paid once for the
 * batch, so each order carries its share of it.
 */

/** The receipts' gasUsed of scenario 12's steps (batch 10 figures are for the whole message). */
export interface StepGas {
  readonly deposit: bigint;
  readonly fill: bigint;
  readonly fillAndProve: bigint;
  readonly prove10: bigint;
  readonly dvnVerify: bigint;
  readonly dvnVerify10: bigint;
  readonly commit: bigint;
  readonly commit10: bigint;
  readonly lzReceive1: bigint;
  readonly lzReceive10: bigint;
}

/** Gas per order, proven alone (…1) or in a batch of 10 (…10). */
export interface GasPerOrder {
  /** The LayerZero workers' part: two DVNs' verifications, the commit and lzReceive of the message. */
  readonly workers1: number;
  readonly workers10: number;
  /** Every transaction the order causes on both chains. */
  readonly whole1: number;
  readonly whole10: number;
  /** Ferry's and the LP's transactions only (the workers recoup theirs through the messaging fee). */
  readonly direct1: number;
  readonly direct10: number;
}

/** Orders per proof message in scenario 12's batched measurement. */
export const BATCH = 10;

export function gasPerOrder(g: StepGas): GasPerOrder {
  const n = (x: bigint) => Number(x);
  const workers1 = 2 * n(g.dvnVerify) + n(g.commit) + n(g.lzReceive1);
  const workers10 = (2 * n(g.dvnVerify10) + n(g.commit10) + n(g.lzReceive10)) / BATCH;
  const direct1 = n(g.deposit) + n(g.fillAndProve);
  const direct10 = n(g.deposit) + n(g.fill) + n(g.prove10) / BATCH;
  return {
    workers1,
    workers10,
    whole1: direct1 + workers1,
    whole10: direct10 + workers10,
    direct1,
    direct10,
  };
}

/**
 * Scenario 13: all the gas both chains used while the swaps ran, over the orders completed (whole gas units,
 * rounded down; 0 when none completed).
 */
export function allInPerOrder(
  gasPerChain: readonly bigint[],
  completed: number,
): { total: bigint; perOrder: number } {
  const total = gasPerChain.reduce((sum, gas) => sum + gas, 0n);
  return { total, perOrder: completed > 0 ? Number(total / BigInt(completed)) : 0 };
}
