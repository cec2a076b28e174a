import { describe, expect, it } from 'vitest';
import { graceShortfalls } from './settle-grace-rule.ts';

const route = { inputChain: 'a', outputChain: 'b', settleGrace: 30n, proveAfter: 5, executeAfter: 10 };

describe('graceShortfalls', () => {
  it('accepts fallbacks that end before the grace does', () => {
    expect(graceShortfalls([route, { ...route, proveAfter: 19, executeAfter: 10 }])).toEqual([]);
  });

  it('names the route, both settings and the grace when they reach it', () => {
    const [line, ...rest] = graceShortfalls([route, { ...route, proveAfter: 20 }]);
    expect(rest).toEqual([]);
    expect(line).toBe(
      'orders from a filled on b: proveAfterSeconds 20 (b) + executeAfterSeconds 10 (a) = 30 s is not below ' +
        "the escrow's settleGrace of 30 s: a fill the worker proves at the deadline can arrive after the refund opens",
    );
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
