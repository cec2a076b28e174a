import { describe, expect, it } from 'vitest';
import { escrowStatusOf } from './escrow-status.ts';

describe('escrowStatusOf', () => {
  it("names FerryEscrow.orderStatus's codes as its Status enum orders them, anything else as none", () => {
    expect([0, 1, 2, 3n].map(escrowStatusOf)).toEqual(['none', 'active', 'settled', 'refunded']);
    expect(escrowStatusOf(4)).toBe('none');
  });
});
