import { describe, expect, it } from 'vitest';
import { protocolFeeOf } from './protocol-fee.ts';

describe('protocolFeeOf', () => {
  it('is inputAmount × bps / 10000, rounded down', () => {
    expect(protocolFeeOf(25_000_000n, 10)).toBe(25_000n);
    expect(protocolFeeOf(9_999n, 1)).toBe(0n);
    expect(protocolFeeOf(10_001n, 100)).toBe(100n);
    expect(protocolFeeOf(123_456_789n, 0)).toBe(0n);
  });
});
