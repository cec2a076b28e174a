import { describe, expect, it } from 'vitest';
import { graceShortfalls, minimumSettleGrace } from './settle-grace-rule.ts';

const route = {
  inputChain: 'a',
  outputChain: 'b',
  settleGrace: 300n,
  sourceConfirmations: 15,
  sourceBlockSeconds: 2.5,
  dvnVerifySeconds: 60,
  proveAfter: 60,
  executeAfter: 120,
};

describe('settle grace rule', () => {
  it('adds confirmations × block time (rounded up), DVN verification, proveAfter and executeAfter', () => {
    expect(minimumSettleGrace(route)).toBe(38 + 60 + 60 + 120);
  });

  it('accepts a grace at the minimum, refuses one below it naming every part', () => {
    expect(graceShortfalls([{ ...route, settleGrace: 278n }])).toEqual([]);
    expect(graceShortfalls([{ ...route, settleGrace: 277n }])).toEqual([
      "orders from a filled on b: the escrow's settleGrace of 277 s is below the minimum of 278 s " +
        '(15 confirmations × 2.5 s blocks (b) + 60 s DVN verification + proveAfterSeconds 60 (b) + ' +
        'executeAfterSeconds 120 (a)): a fill proven at the deadline can arrive after the refund opens',
    ]);
  });

  it('checks every route on its own', () => {
    const lines = graceShortfalls([
      { ...route, settleGrace: 10n },
      { ...route, inputChain: 'b', outputChain: 'a', settleGrace: 3600n },
    ]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^orders from a filled on b/);
  });
});
