import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EscrowStatus } from './escrow-status.ts';
import { canTransitionOrder, ORDER_STATUSES, type OrderStatus } from './lifecycle.ts';
import { actionForbiddingMove, decideSettlement, validFillAtDepth } from './settlement-decision.ts';
import type { SettlementDecision } from './settlement-decision-type.ts';
import type { ObservedFill, RecordedAction, SettlementObservation } from './settlement-observation.ts';
import {
  actions,
  confirmed,
  FILL_BY,
  FILLER,
  GRACE,
  goodFill,
  OPEN,
  OTHER,
  observation,
  open,
  RECIPIENT,
  recorded,
  TOKEN,
  terms,
  tx,
} from './settlement-observation-fixtures.ts';

describe('decideSettlement: created', () => {
  it('deposits when the funds are there and the deposit would not revert', () => {
    expect(decideSettlement(observation())).toEqual({ kind: 'deposit' });
  });

  it('waits on a balance or allowance shortfall until openDeadline, then fails', () => {
    const short = { balance: 1_000n, allowance: 0n, inputAmount: 1_000n, revert: null };
    expect(decideSettlement(observation({ depositCheck: short }))).toMatchObject({
      kind: 'wait',
      reason: expect.stringMatching(/^INSUFFICIENT_ALLOWANCE/),
    });
    expect(decideSettlement(observation({ depositCheck: short, inputTime: OPEN }))).toMatchObject({
      kind: 'wait',
    });
    expect(decideSettlement(observation({ depositCheck: short, inputTime: OPEN + 1n }))).toMatchObject({
      kind: 'fail',
      reason: expect.stringMatching(/^INSUFFICIENT_ALLOWANCE.*openDeadline/),
    });
    const poor = { ...short, balance: 1n, allowance: 1_000n };
    expect(decideSettlement(observation({ depositCheck: poor }))).toMatchObject({
      reason: expect.stringMatching(/^INSUFFICIENT_BALANCE/),
    });
  });

  it('waits while the deposit would revert (a paused token, a deposit racing ours) until openDeadline, then fails', () => {
    const check = { balance: 1_000n, allowance: 1_000n, inputAmount: 1_000n, revert: 'OrderExists' };
    expect(decideSettlement(observation({ depositCheck: check }))).toEqual({
      kind: 'wait',
      reason: 'deposit would revert: OrderExists',
    });
    expect(decideSettlement(observation({ depositCheck: check, inputTime: OPEN + 1n }))).toEqual({
      kind: 'fail',
      reason: 'deposit would revert: OrderExists; the deposit deadline (openDeadline) passed',
    });
  });

  it('never fails while the escrow holds the order at the latest block, even past openDeadline', () => {
    for (const escrowAtLatest of ['active', 'settled', 'refunded'] as const) {
      const obs = observation({ escrowAtLatest, inputTime: OPEN + 5n, depositCheck: null });
      expect(decideSettlement(obs)).toMatchObject({ kind: 'wait' });
    }
  });

  it('follows a deposit made by anyone, even past openDeadline', () => {
    for (const escrow of ['active', 'settled', 'refunded'] as const) {
      expect(decideSettlement(observation({ escrow, inputTime: OPEN + 50n }))).toEqual({
        kind: 'follow',
        to: 'deposited',
      });
    }
    expect(
      decideSettlement(observation({ escrow: 'active', actions: actions({ deposit: confirmed(1) }) })),
    ).toEqual({ kind: 'follow', to: 'deposited', srcChainTxHash: tx(1) });
  });

  it('drives its own deposit in flight to a receipt, and never fails a deposit not yet at depth early', () => {
    expect(decideSettlement(observation({ actions: actions({ deposit: recorded(1) }) }))).toEqual({
      kind: 'deposit',
    });
    expect(decideSettlement(observation({ actions: actions({ deposit: confirmed(1) }) }))).toMatchObject({
      kind: 'wait',
    });
    const reverted = actions({ deposit: { status: 'reverted', txHash: tx(1) } });
    // Before openDeadline a reverted deposit is sent again once the funds are there and it would not revert.
    expect(decideSettlement(observation({ actions: reverted }))).toEqual({ kind: 'deposit', retryOf: tx(1) });
    const paused = { balance: 1_000n, allowance: 1_000n, inputAmount: 1_000n, revert: 'Paused' };
    expect(decideSettlement(observation({ actions: reverted, depositCheck: paused }))).toMatchObject({
      kind: 'wait',
    });
    expect(decideSettlement(observation({ actions: reverted, inputTime: OPEN + 1n }))).toMatchObject({
      kind: 'fail',
      reason: expect.stringMatching(/reverted.*openDeadline/),
    });
  });
});

describe('decideSettlement: deposited and filled', () => {
  it('follows a valid fill at depth, then attests and settles', () => {
    expect(decideSettlement(open({ fill: goodFill }))).toEqual({
      kind: 'follow',
      to: 'filled',
      dstChainTxHash: goodFill.txHash,
      filledBy: goodFill.filler,
    });
    expect(decideSettlement(open({ status: 'filled', fill: goodFill }))).toEqual({
      kind: 'attest-and-settle',
    });
  });

  it('ignores a fill that is not at depth, late, short, to someone else or by someone else', () => {
    const bad: Partial<ObservedFill>[] = [
      { depth: 2 },
      { blockTimestamp: FILL_BY + 1n },
      { amount: 989n },
      { recipient: OTHER },
      { token: OTHER },
      { filler: OTHER },
    ];
    for (const change of bad) {
      const obs = open({ fill: { ...goodFill, ...change }, outputConfirmations: change.depth ? 3 : 1 });
      expect(
        validFillAtDepth(obs),
        JSON.stringify(change, (_, v) => String(v)),
      ).toBeNull();
      expect(decideSettlement(obs)).toMatchObject({ kind: 'wait' });
    }
  });

  it("counts anyone's fill after the exclusivity, and only the quoted filler's before it", () => {
    const EXCLUSIVE_UNTIL = FILL_BY - 100n;
    const exclusive = { ...terms, exclusivityDeadline: EXCLUSIVE_UNTIL };
    const byOther = (blockTimestamp: bigint) => ({ ...goodFill, filler: OTHER, blockTimestamp });
    // Within the exclusivity (its last second included) another filler's fill does not count.
    expect(validFillAtDepth(open({ terms: exclusive, fill: byOther(EXCLUSIVE_UNTIL) }))).toBeNull();
    // After it, the other filler's fill counts and the order names it as filled by.
    const after = open({ terms: exclusive, fill: byOther(EXCLUSIVE_UNTIL + 1n) });
    expect(validFillAtDepth(after)).not.toBeNull();
    expect(decideSettlement(after)).toMatchObject({ kind: 'follow', to: 'filled', filledBy: OTHER });
    // An order that names no filler is open from the start.
    const open0 = { ...exclusive, filler: '0x0000000000000000000000000000000000000000' as const };
    expect(validFillAtDepth(open({ terms: open0, fill: byOther(1n) }))).not.toBeNull();
    // The quoted filler may fill any time up to fillDeadline.
    expect(validFillAtDepth(open({ terms: exclusive, fill: goodFill }))).not.toBeNull();
  });

  it('refunds only after fillDeadline + grace on the input chain and fillDeadline on the output chain', () => {
    const late = { inputTime: FILL_BY + GRACE + 1n, outputTime: FILL_BY + 1n };
    expect(decideSettlement(open(late))).toEqual({ kind: 'refund' });
    expect(decideSettlement(open({ ...late, inputTime: FILL_BY + GRACE }))).toMatchObject({ kind: 'wait' });
    expect(decideSettlement(open({ ...late, outputTime: FILL_BY }))).toMatchObject({ kind: 'wait' });
    // A valid fill wins over the refund, however late it is seen.
    expect(decideSettlement(open({ ...late, fill: goodFill }))).toMatchObject({
      kind: 'follow',
      to: 'filled',
    });
  });

  it('never settles once a refund is written down, never refunds once a settle is', () => {
    const late = { inputTime: FILL_BY + GRACE + 1n, outputTime: FILL_BY + 1n };
    expect(
      decideSettlement(open({ status: 'filled', fill: goodFill, actions: actions({ refund: recorded(2) }) })),
    ).toMatchObject({ kind: 'wait' });
    expect(decideSettlement(open({ ...late, actions: actions({ settle: recorded(3) }) }))).toEqual({
      kind: 'attest-and-settle',
    });
    expect(decideSettlement(open({ ...late, actions: actions({ refund: recorded(2) }) }))).toEqual({
      kind: 'refund',
    });
  });

  it('sends a reverted settle or refund again while the escrow is active and the reason to send it holds', () => {
    const reverted = (n: number): RecordedAction => ({ status: 'reverted', txHash: tx(n) });
    expect(
      decideSettlement(open({ status: 'filled', fill: goodFill, actions: actions({ settle: reverted(3) }) })),
    ).toEqual({ kind: 'attest-and-settle', retryOf: tx(3) });
    const late = { inputTime: FILL_BY + GRACE + 1n, outputTime: FILL_BY + 1n };
    expect(decideSettlement(open({ ...late, actions: actions({ refund: reverted(2) }) }))).toEqual({
      kind: 'refund',
      retryOf: tx(2),
    });
    // A spent settle without a valid fill now: the refund is due, and the settle no longer blocks it.
    expect(decideSettlement(open({ ...late, actions: actions({ settle: reverted(3) }) }))).toEqual({
      kind: 'refund',
    });
    expect(decideSettlement(open({ actions: actions({ settle: reverted(3) }) }))).toMatchObject({
      kind: 'wait',
    });
  });

  it('follows the escrow: settled → completed, refunded by anyone → refunded', () => {
    expect(decideSettlement(open({ escrow: 'settled', fill: goodFill }))).toEqual({
      kind: 'follow',
      to: 'completed',
      dstChainTxHash: goodFill.txHash,
      filledBy: goodFill.filler,
    });
    expect(
      decideSettlement(
        open({ status: 'filled', escrow: 'settled', actions: actions({ settle: confirmed(3) }) }),
      ),
    ).toEqual({ kind: 'follow', to: 'completed', settlementTxHash: tx(3) });
    expect(decideSettlement(open({ escrow: 'refunded' }))).toEqual({
      kind: 'follow',
      to: 'refunded',
      failureReason: 'the escrow was refunded to the offerer on chain',
    });
    expect(
      decideSettlement(open({ escrow: 'refunded', actions: actions({ refund: confirmed(2) }) })),
    ).toEqual({
      kind: 'follow',
      to: 'refunded',
      settlementTxHash: tx(2),
      failureReason: 'not filled before the fill deadline; the input was returned to the offerer',
    });
  });

  it('has nothing to do for terminal orders', () => {
    for (const status of ['completed', 'failed', 'refunded'] as const) {
      expect(decideSettlement(open({ status, escrow: 'settled' }))).toEqual({ kind: 'done' });
    }
  });
});

// ------------------------------------------------------------------ properties

const address = fc.constantFrom(FILLER, RECIPIENT, TOKEN, OTHER);
const around = (t: bigint) => fc.bigInt({ min: t - 3n, max: t + 3n });
const time = fc.oneof(around(OPEN), around(FILL_BY), around(FILL_BY + GRACE), fc.constant(0n));
const fillArb: fc.Arbitrary<ObservedFill | null> = fc.option(
  fc.record({
    txHash: fc.constant(goodFill.txHash),
    filler: fc.oneof(fc.constant(FILLER), address),
    recipient: fc.oneof(fc.constant(RECIPIENT), address),
    token: fc.oneof(fc.constant(TOKEN), address),
    amount: fc.constantFrom(990n, 989n, 991n),
    blockTimestamp: around(FILL_BY),
    depth: fc.integer({ min: 0, max: 4 }),
  }),
);
/** One pass's view of the chains: anything at all, consistent or not (a worker must never trust a story). */
const chainView = fc.record({
  escrow: fc.constantFrom<EscrowStatus>('none', 'active', 'settled', 'refunded'),
  inputTime: time,
  outputTime: time,
  outputConfirmations: fc.integer({ min: 1, max: 3 }),
  fill: fillArb,
  escrowAtLatest: fc.option(fc.constantFrom<EscrowStatus>('none', 'active')),
  depositCheck: fc.option(
    fc.record({
      balance: fc.constantFrom(0n, 1_000n),
      allowance: fc.constantFrom(0n, 1_000n),
      inputAmount: fc.constant(1_000n),
      revert: fc.option(fc.constantFrom('WrongSigner', 'OrderExists')),
    }),
  ),
  // How each recorded transaction of Ferry's has fared by this pass.
  outcome: fc.constantFrom<RecordedAction['status']>('recorded', 'confirmed', 'reverted'),
});

/** Written down and not spent without effect: it may still move the escrow. */
const live = (action: RecordedAction | null) => action !== null && action.status !== 'reverted';

interface Run {
  status: OrderStatus;
  actions: { deposit: RecordedAction | null; settle: RecordedAction | null; refund: RecordedAction | null };
  problems: string[];
}

/** Applies one decision to the simulated order the way the worker and executor would, noting any violation. */
function apply(run: Run, obs: SettlementObservation, decision: SettlementDecision): void {
  const fail = (problem: string) => run.problems.push(`${problem} (${obs.status}, ${decision.kind})`);
  const fill = validFillAtDepth(obs);
  switch (decision.kind) {
    case 'deposit':
      if (run.status !== 'created') fail('deposit outside created');
      if (decision.retryOf && run.actions.deposit?.status !== 'reverted') fail('deposit retry of a live one');
      if (decision.retryOf || !run.actions.deposit)
        run.actions.deposit = { status: 'recorded', txHash: tx(1) };
      return;
    case 'attest-and-settle': {
      if (live(run.actions.refund)) fail('settle after a refund was written down');
      const fresh = decision.retryOf !== undefined || !run.actions.settle;
      if (fresh && !fill) fail('settle without a valid fill at depth');
      if (decision.retryOf && run.actions.settle?.status !== 'reverted') fail('settle retry of a live one');
      if (fresh) run.actions.settle = { status: 'recorded', txHash: tx(3) };
      return;
    }
    case 'refund': {
      if (live(run.actions.settle)) fail('refund after a settle was written down');
      if (fill) fail('refund although a valid fill exists');
      const fresh = decision.retryOf !== undefined || !run.actions.refund;
      if (fresh && obs.inputTime <= obs.terms.fillDeadline + obs.settleGrace) fail('refund before it opens');
      if (decision.retryOf && run.actions.refund?.status !== 'reverted') fail('refund retry of a live one');
      if (fresh) run.actions.refund = { status: 'recorded', txHash: tx(2) };
      return;
    }
    case 'follow': {
      const truth: Record<typeof decision.to, boolean> = {
        deposited: obs.escrow !== 'none',
        filled: obs.escrow === 'active' && fill !== null,
        completed: obs.escrow === 'settled',
        refunded: obs.escrow === 'refunded',
      };
      if (!truth[decision.to]) fail(`${decision.to} while the escrow says ${obs.escrow}`);
      if (!canTransitionOrder(run.status, decision.to)) fail(`${run.status} → ${decision.to}`);
      run.status = decision.to;
      return;
    }
    case 'fail':
      if (obs.escrow !== 'none') fail(`failed while the escrow says ${obs.escrow}`);
      if (obs.escrowAtLatest !== null && obs.escrowAtLatest !== 'none')
        fail('failed with a deposit on chain');
      if (!canTransitionOrder(run.status, 'failed')) fail(`${run.status} → failed`);
      run.status = 'failed';
      return;
    case 'wait':
      return;
    case 'done':
      if (!['completed', 'failed', 'refunded'].includes(run.status)) fail('done on an open order');
      return;
  }
}

describe('decideSettlement properties', () => {
  it('no sequence of observations leads to both a settle and a refund, a settle without a fill at depth, or a status the chain contradicts', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<OrderStatus>('created', 'deposited', 'filled'),
        fc.array(chainView, { minLength: 1, maxLength: 30 }),
        (start, views) => {
          const run: Run = {
            status: start,
            actions: { deposit: null, settle: null, refund: null },
            problems: [],
          };
          for (const view of views) {
            const { outcome, ...chain } = view;
            // Ferry's transactions in flight reach some outcome between passes.
            for (const kind of ['deposit', 'settle', 'refund'] as const) {
              const action = run.actions[kind];
              if (action?.status === 'recorded') run.actions[kind] = { ...action, status: outcome };
            }
            const obs: SettlementObservation = {
              ...chain,
              status: run.status,
              terms,
              settleGrace: GRACE,
              actions: { ...run.actions },
              route: { method: 'attester' },
            };
            apply(run, obs, decideSettlement(obs));
          }
          expect(run.problems).toEqual([]);
          expect(live(run.actions.settle) && live(run.actions.refund)).toBe(false);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('decides something for every status and observation (the union is exhaustive)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ORDER_STATUSES), chainView, (status, { outcome: _, ...chain }) => {
        const decision = decideSettlement({
          ...chain,
          status,
          terms,
          settleGrace: GRACE,
          actions: { deposit: null, settle: null, refund: null },
          route: { method: 'attester' },
        });
        expect(['deposit', 'attest-and-settle', 'refund', 'follow', 'fail', 'wait', 'done']).toContain(
          decision.kind,
        );
      }),
    );
  });
});

describe('a refund written down beats a fill seen later', () => {
  it('a live refund forbids the move to filled, and no other move', () => {
    expect(actionForbiddingMove('filled')).toBe('refund');
    for (const to of ORDER_STATUSES.filter((s) => s !== 'filled'))
      expect(actionForbiddingMove(to)).toBeNull();
  });
});
