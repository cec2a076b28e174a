import { describe, expect, it } from 'vitest';
import { type MeasuredSwap, settlementResult } from './settlement-breakdown.ts';

/**
 * Swap A, every time in ms on one clock: sent at 1,000; deposited 1,100, filled 1,300, completed 1,700, the
 * completed event received at 1,750. Deposit pending 1,050 mined 1,080; fill pending 1,150 mined 1,250; the
 * settlement mined at 1,600, its mempool entry unseen.
 */
const a: MeasuredSwap = {
  swap: {
    orderId: 'a',
    sentAt: 1_000,
    events: { created: 1_010, deposited: 1_100, filled: 1_300, completed: 1_700 },
    completedReceivedAt: 1_750,
    failed: null,
  },
  txs: [
    { pending: 1_050, mined: 1_080 },
    { pending: 1_150, mined: 1_250 },
    { pending: null, mined: 1_600 },
  ],
};

/** Swap B: sent at 0, an event every 100 ms, no transaction times known (it counts in the steps' totals only). */
const b: MeasuredSwap = {
  swap: {
    orderId: 'b',
    sentAt: 0,
    events: { deposited: 100, filled: 200, completed: 300 },
    completedReceivedAt: 300,
    failed: null,
  },
  txs: [null, null, null],
};

const run = (blockSeconds: number | null) => ({ label: 'test', count: 2, seconds: 3, blockSeconds });
const confirmations = { input: 2, output: 1 };

describe('settlement breakdown', () => {
  it('splits one swap between the chains, the LP bot and Ferry', () => {
    const r = settlementResult(run(null), [a], [], confirmations, 'bot log');
    // Swap → completed received: 750. Chains: 30 + 100 + 0 (unseen pending counts as mined) = 130.
    expect(r.chainShare).toBeCloseTo(130 / 750, 12);
    // The LP bot: deposited event 1,100 → fill pending 1,150.
    expect(r.lpShare).toBeCloseTo(50 / 750, 12);
    // Ferry: deposit act 50 + observe 20, fill observe 50, settlement act 300 + observe 100.
    expect(r.ferryShare).toBeCloseTo(520 / 750, 12);
    expect(r.unseenPending).toBe(1);
    expect([r.p50Ms, r.p99Ms, r.filledP50Ms]).toEqual([750, 750, 300]);
    expect(r.steps.deposited).toEqual({
      actP50Ms: 50,
      chainP50Ms: 30,
      observeP50Ms: 20,
      observeP99Ms: 20,
      observeAllowanceMs: null,
      stepP50Ms: 100,
      stepP99Ms: 100,
    });
    expect(r.steps.filled).toMatchObject({ actP50Ms: 50, chainP50Ms: 100, observeP50Ms: 50, stepP50Ms: 200 });
    expect(r.steps.completed).toMatchObject({
      actP50Ms: 300,
      chainP50Ms: 0,
      observeP50Ms: 100,
      stepP50Ms: 400,
    });
    expect(r.botOutput).toBe('');
  });

  it('adds a swap without transaction times to the totals and step times only', () => {
    const r = settlementResult(run(null), [a, b], [], confirmations, '');
    expect(r.completed).toBe(2);
    // Both totals (750 + 300) are the denominator; only A's parts are known.
    expect(r.chainShare).toBeCloseTo(130 / 1_050, 12);
    expect(r.lpShare).toBeCloseTo(50 / 1_050, 12);
    expect(r.ferryShare).toBeCloseTo(520 / 1_050, 12);
    // Percentiles take the sample at floor(p% × n): of two, p50 and p99 are both the larger.
    expect([r.p50Ms, r.p99Ms]).toEqual([750, 750]);
    expect([r.filledP50Ms, r.filledP99Ms]).toEqual([300, 300]);
    expect(r.steps.filled).toMatchObject({ actP50Ms: 50, stepP50Ms: 200, stepP99Ms: 200 });
  });

  it('allows one block per confirmation of the chain each step lands on', () => {
    const r = settlementResult(run(2), [a], [], confirmations, '');
    // Deposit and settlement on the input chain (2 confirmations), the fill on the output chain (1); 2 s blocks.
    expect(r.steps.deposited.observeAllowanceMs).toBe(4_000);
    expect(r.steps.filled.observeAllowanceMs).toBe(2_000);
    expect(r.steps.completed.observeAllowanceMs).toBe(4_000);
  });

  it('with no swap measured, shares are 0 and failures keep the bot log tail', () => {
    const failures = ['1', '2', '3', '4', '5', '6'];
    const r = settlementResult(
      run(null),
      [],
      failures,
      confirmations,
      `${'x'.repeat(100)}${'y'.repeat(600)}`,
    );
    expect([r.chainShare, r.lpShare, r.ferryShare, r.p50Ms]).toEqual([0, 0, 0, 0]);
    expect(r.failures).toEqual(['1', '2', '3', '4', '5']);
    expect(r.botOutput).toBe('y'.repeat(600));
  });
});
