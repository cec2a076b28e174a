import { describe, expect, it } from 'vitest';
import { allInPerOrder, gasPerOrder, type StepGas } from './gas-per-order.ts';

// Round receipts, so every expected figure below can be checked by hand.
const steps: StepGas = {
  deposit: 60_000n,
  fill: 50_000n,
  fillAndProve: 150_000n,
  prove10: 200_000n,
  dvnVerify: 40_000n,
  dvnVerify10: 45_000n,
  commit: 30_000n,
  commit10: 32_000n,
  lzReceive1: 80_000n,
  lzReceive10: 400_000n,
};

describe('gas per order (scenario 12)', () => {
  it('proven alone: both DVNs verify, then commit and lzReceive, all for the one order', () => {
    const g = gasPerOrder(steps);
    // 2 × 40,000 + 30,000 + 80,000
    expect(g.workers1).toBe(190_000);
    // deposit 60,000 + fillAndProve 150,000
    expect(g.direct1).toBe(210_000);
    expect(g.whole1).toBe(400_000);
  });

  it('in a batch of 10: each order pays its fill and a tenth of the message', () => {
    const g = gasPerOrder(steps);
    // (2 × 45,000 + 32,000 + 400,000) / 10
    expect(g.workers10).toBe(52_200);
    // 60,000 + 50,000 + 200,000 / 10
    expect(g.direct10).toBe(130_000);
    expect(g.whole10).toBe(182_200);
  });

  it('keeps a share that is not a whole unit (the rows round it)', () => {
    const g = gasPerOrder({ ...steps, prove10: 200_005n });
    expect(g.direct10).toBe(130_000.5);
    expect(g.whole10).toBe(182_200.5);
  });
});

describe('all-in gas per order (scenario 13)', () => {
  it('sums every chain and divides by the orders completed, rounding down', () => {
    expect(allInPerOrder([1_000_001n, 2_000_000n], 3)).toEqual({ total: 3_000_001n, perOrder: 1_000_000 });
  });

  it('is 0 per order when no order completed', () => {
    expect(allInPerOrder([500_000n], 0)).toEqual({ total: 500_000n, perOrder: 0 });
  });
});
