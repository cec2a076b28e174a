import { describe, expect, it } from 'vitest';
import { MAX_REVERTED_SENDS, revertsExhausted, throttledUntil } from './relayer-reverts.ts';
import { decideSettlement } from './settlement-decision.ts';
import type { RecordedAction, SettlementRoute } from './settlement-observation.ts';
import {
  actions,
  FILL_BY,
  GRACE,
  goodFill,
  observation,
  open,
  tx,
} from './settlement-observation-fixtures.ts';

const reverted = (n: number, count: number): RecordedAction => ({
  status: 'reverted',
  txHash: tx(n),
  reverted: count,
});

describe('the relayer-revert bound (one rule for every action)', () => {
  it('allows two reverts of an action per order, no third send', () => {
    expect(MAX_REVERTED_SENDS).toBe(2);
    expect(revertsExhausted(0)).toBe(false);
    expect(revertsExhausted(1)).toBe(false);
    expect(revertsExhausted(2)).toBe(true);
  });

  it('deposits once more after one reverted deposit, and fails the order after the second, with its reason', () => {
    expect(decideSettlement(observation({ actions: actions({ deposit: reverted(1, 1) }) }))).toEqual({
      kind: 'deposit',
      retryOf: tx(1),
    });
    const failed = decideSettlement(observation({ actions: actions({ deposit: reverted(2, 2) }) }));
    expect(failed).toEqual({
      kind: 'fail',
      reason: `RELAYER_REVERTS: 2 deposit transactions reverted on chain after passing simulation (last ${tx(2)}); the relayer does not send it again`,
    });
    // Even while the simulation passes and openDeadline is far.
    expect(
      decideSettlement(observation({ actions: actions({ deposit: reverted(2, 2) }), inputTime: 0n })),
    ).toMatchObject({ kind: 'fail' });
  });

  it('a deposit by anyone that landed is followed, whatever Ferry’s reverted', () => {
    expect(
      decideSettlement(observation({ escrow: 'active', actions: actions({ deposit: reverted(2, 2) }) })),
    ).toMatchObject({ kind: 'follow', to: 'deposited' });
  });

  it('gives up a refund after two reverts, never an attester settle of a valid fill', () => {
    // Only Ferry's attester can settle on an attester chain: giving up would let the refund take a paid fill.
    const filled = open({ status: 'filled', fill: goodFill, actions: actions({ settle: reverted(3, 2) }) });
    expect(decideSettlement(filled)).toEqual({ kind: 'attest-and-settle', retryOf: tx(3) });
    const late = { inputTime: FILL_BY + GRACE + 1n, outputTime: FILL_BY + 1n };
    const refund = decideSettlement(open({ ...late, actions: actions({ refund: reverted(2, 2) }) }));
    expect(refund).toMatchObject({ kind: 'give-up', action: 'refund' });
    expect(refund.kind === 'give-up' && refund.reason).toMatch(/^RELAYER_REVERTS: 2 refund transactions/);
  });

  it('gives up LayerZero prove, commit and execute after two reverts', () => {
    const lz = (state: 'verified' | 'committed' | null): SettlementRoute => ({
      method: 'layerzero',
      proof: state && { guid: tx(9), txHash: tx(0xa), sentAt: FILL_BY, state, delivered: null },
      proveAfter: 60n,
      executeAfter: 120n,
      now: FILL_BY + 500n,
    });
    const filled = (route: SettlementRoute, a: Partial<ReturnType<typeof actions>>) =>
      decideSettlement(
        open({ status: 'filled', fill: goodFill, outputTime: FILL_BY, route, actions: actions(a) }),
      );
    expect(filled(lz(null), { prove: reverted(4, 2) })).toMatchObject({ kind: 'give-up', action: 'prove' });
    expect(filled(lz(null), { prove: reverted(4, 1) })).toEqual({ kind: 'prove', retryOf: tx(4) });
    expect(filled(lz('verified'), { commit: reverted(5, 2) })).toMatchObject({
      kind: 'give-up',
      action: 'commit',
    });
    expect(filled(lz('committed'), { execute: reverted(6, 2) })).toMatchObject({
      kind: 'give-up',
      action: 'execute',
    });
  });
});

describe('throttledUntil (a money mover’s reverts across its orders)', () => {
  const rule = { limit: 3, windowSeconds: 60 };
  const now = 1_000_000;

  it('lets an account swap while fewer than `limit` reverts fall in the window', () => {
    expect(throttledUntil([], now, rule)).toBeNull();
    expect(throttledUntil([now - 1000, now - 2000], now, rule)).toBeNull();
    // Older than the window: not counted.
    expect(throttledUntil([now - 1000, now - 2000, now - 60_000], now, rule)).toBeNull();
  });

  it('refuses until the oldest of the `limit` newest reverts leaves the window', () => {
    expect(throttledUntil([now - 5000, now - 1000, now - 3000], now, rule)).toBe(now - 5000 + 60_000);
    expect(throttledUntil([now - 9000, now - 5000, now - 1000, now - 3000], now, rule)).toBe(
      now - 5000 + 60_000,
    );
  });
});
