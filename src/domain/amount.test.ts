import { describe, expect, it } from 'vitest';
import { exceedsPremium } from './amount.ts';

const usdc = (amount: bigint) => ({ amount, decimals: 6 });
const dai = (amount: bigint) => ({ amount, decimals: 18 });

describe('exceedsPremium', () => {
  it('allows up to the premium exactly, on the same decimals', () => {
    expect(exceedsPremium(usdc(1_000_000n), usdc(1_100_000n), 1000)).toBe(false);
    expect(exceedsPremium(usdc(1_000_000n), usdc(1_100_001n), 1000)).toBe(true);
    expect(exceedsPremium(usdc(1_000_000n), usdc(1_000_000n), 0)).toBe(false);
    expect(exceedsPremium(usdc(1_000_000n), usdc(1_000_001n), 0)).toBe(true);
  });

  it('rescales across decimals without rounding a sliver over the ceiling away', () => {
    // 1 USDC in, 1.1 DAI out is the ceiling; one DAI wei more is over it.
    expect(exceedsPremium(usdc(1_000_000n), dai(11n * 10n ** 17n), 1000)).toBe(false);
    expect(exceedsPremium(usdc(1_000_000n), dai(11n * 10n ** 17n + 1n), 1000)).toBe(true);
    // 1 DAI in, 1.1 USDC out.
    expect(exceedsPremium(dai(10n ** 18n), usdc(1_100_000n), 1000)).toBe(false);
    expect(exceedsPremium(dai(10n ** 18n - 1n), usdc(1_100_000n), 1000)).toBe(true);
  });

  it('handles uint256 extremes', () => {
    const max = 2n ** 256n - 1n;
    expect(exceedsPremium(usdc(1_000n), usdc(max), 1000)).toBe(true);
    expect(exceedsPremium(usdc(max), usdc(max), 0)).toBe(false);
  });
});
