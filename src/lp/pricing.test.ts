import { describe, expect, it } from 'vitest';
import { quoteOutputAmount } from './pricing.ts';

describe('quoteOutputAmount', () => {
  it('takes the spread off in bigint, rounding down', () => {
    expect(quoteOutputAmount(1_000_000n, 30, { input: 6, output: 6 })).toBe(997_000n);
    expect(quoteOutputAmount(2_000_001n, 25, { input: 6, output: 6 })).toBe(1_995_000n);
    expect(quoteOutputAmount(1_000_000n, 0, { input: 6, output: 6 })).toBe(1_000_000n);
    // Beyond 2^53: no precision lost.
    expect(quoteOutputAmount(10n ** 30n + 7n, 1, { input: 6, output: 6 })).toBe(
      999_900_000_000_000_000_000_000_000_006n,
    );
  });

  it('rescales between tokens of different decimals', () => {
    expect(quoteOutputAmount(1_000_000n, 25, { input: 6, output: 18 })).toBe(997_500_000_000_000_000n);
    expect(quoteOutputAmount(10n ** 18n, 0, { input: 18, output: 6 })).toBe(1_000_000n);
    expect(quoteOutputAmount(999_999_999_999n, 0, { input: 18, output: 6 })).toBe(0n);
  });

  it('refuses a spread outside 0-9999 basis points', () => {
    expect(() => quoteOutputAmount(1n, 10_000, { input: 6, output: 6 })).toThrow(RangeError);
    expect(() => quoteOutputAmount(1n, -1, { input: 6, output: 6 })).toThrow(RangeError);
    expect(() => quoteOutputAmount(1n, 1.5, { input: 6, output: 6 })).toThrow(RangeError);
  });
});
