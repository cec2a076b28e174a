import { describe, expect, it } from 'vitest';
import { initialFees, replacementFees } from './fee-bump.ts';

const gwei = (n: number) => BigInt(n) * 10n ** 9n;

describe('fee bump', () => {
  it('raises both fees by at least 12.5 %, rounded up', () => {
    const next = replacementFees(
      { maxFeePerGas: 1001n, maxPriorityFeePerGas: 3n },
      { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n },
      gwei(1000),
    );
    expect(next).toEqual({ maxFeePerGas: 1127n, maxPriorityFeePerGas: 4n });
  });

  it('goes to the current estimate when that is higher than the raise', () => {
    const next = replacementFees(
      { maxFeePerGas: gwei(4), maxPriorityFeePerGas: gwei(1) },
      { maxFeePerGas: gwei(601), maxPriorityFeePerGas: gwei(2) },
      gwei(1000),
    );
    expect(next).toEqual({ maxFeePerGas: gwei(601), maxPriorityFeePerGas: gwei(2) });
  });

  it('stops at the cap, and gives up raising once the cap leaves no room', () => {
    const capped = replacementFees(
      { maxFeePerGas: gwei(950), maxPriorityFeePerGas: gwei(1) },
      { maxFeePerGas: gwei(1), maxPriorityFeePerGas: gwei(1) },
      gwei(1000),
    );
    expect(capped?.maxFeePerGas).toBe(gwei(1000));
    expect(
      replacementFees(
        { maxFeePerGas: gwei(1000), maxPriorityFeePerGas: gwei(1) },
        { maxFeePerGas: gwei(2000), maxPriorityFeePerGas: gwei(1) },
        gwei(1000),
      ),
    ).toBeNull();
  });

  it('prices a first transaction at twice the estimate, within the cap', () => {
    expect(initialFees({ maxFeePerGas: gwei(3), maxPriorityFeePerGas: gwei(1) }, gwei(1000))).toEqual({
      maxFeePerGas: gwei(6),
      maxPriorityFeePerGas: gwei(1),
    });
    expect(initialFees({ maxFeePerGas: gwei(900), maxPriorityFeePerGas: gwei(1) }, gwei(1000))).toEqual({
      maxFeePerGas: gwei(1000),
      maxPriorityFeePerGas: gwei(1),
    });
  });
});
