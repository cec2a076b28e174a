import { describe, expect, it } from 'vitest';
import { MAX_FERRY_PROVES, settlementRecord } from './proof-decision.ts';
import { decideSettlement } from './settlement-decision.ts';
import type {
  ProofGap,
  ProofObservation,
  SettlementObservation,
  SettlementRoute,
} from './settlement-observation.ts';
import {
  actions,
  confirmed,
  FILL_BY,
  GRACE,
  goodFill,
  open,
  recorded,
  tx,
} from './settlement-observation-fixtures.ts';

const GUID = tx(0x9);
const sent = (state: ProofObservation['state'], delivered: ProofObservation['delivered'] = null) =>
  ({ guid: GUID, txHash: tx(0xa), sentAt: FILL_BY, state, delivered }) satisfies ProofObservation;
const lz = (proof: ProofObservation | null, now = FILL_BY, proves = 0): SettlementRoute => ({
  method: 'layerzero',
  proof,
  proveAfter: 60n,
  executeAfter: 120n,
  now,
  proves,
});
const filled = (overrides: Partial<SettlementObservation>) =>
  open({ status: 'filled', fill: goodFill, outputTime: FILL_BY, ...overrides });

describe('decideSettlement: LayerZero route', () => {
  it('never attests: waits for the filler to prove, then proves the fill itself after proveAfter', () => {
    expect(decideSettlement(filled({ route: lz(null) }))).toMatchObject({ kind: 'wait' });
    expect(decideSettlement(filled({ route: lz(null, FILL_BY + 59n) }))).toMatchObject({ kind: 'wait' });
    expect(decideSettlement(filled({ route: lz(null, FILL_BY + 60n) }))).toEqual({ kind: 'prove' });
    // The output chain's clock counts as well as the worker's.
    expect(decideSettlement(filled({ route: lz(null), outputTime: FILL_BY + 60n }))).toEqual({
      kind: 'prove',
    });
  });

  it("follows Ferry's prove to its receipt and sends it again after a revert", () => {
    const late = lz(null, FILL_BY + 100n);
    expect(decideSettlement(filled({ route: late, actions: actions({ prove: recorded(3) }) }))).toEqual({
      kind: 'prove',
    });
    expect(
      decideSettlement(
        filled({ route: late, actions: actions({ prove: { status: 'reverted', txHash: tx(3) } }) }),
      ),
    ).toEqual({ kind: 'prove', retryOf: tx(3) });
    expect(
      decideSettlement(filled({ route: late, actions: actions({ prove: confirmed(3) }) })),
    ).toMatchObject({
      kind: 'wait',
    });
  });

  it('waits for the DVNs and the executor, then commits and executes a verified message after executeAfter', () => {
    expect(decideSettlement(filled({ route: lz(sent('pending'), FILL_BY + 500n) }))).toMatchObject({
      kind: 'wait',
    });
    expect(decideSettlement(filled({ route: lz(sent('verified'), FILL_BY + 119n) }))).toMatchObject({
      kind: 'wait',
    });
    expect(decideSettlement(filled({ route: lz(sent('verified'), FILL_BY + 120n) }))).toEqual({
      kind: 'commit',
    });
    expect(decideSettlement(filled({ route: lz(sent('committed'), FILL_BY + 120n) }))).toEqual({
      kind: 'execute',
    });
    const reverted = actions({ execute: { status: 'reverted', txHash: tx(4) } });
    expect(
      decideSettlement(filled({ route: lz(sent('committed'), FILL_BY + 120n), actions: reverted })),
    ).toEqual({ kind: 'execute', retryOf: tx(4) });
    expect(decideSettlement(filled({ route: lz(sent('delivered'), FILL_BY + 500n) }))).toMatchObject({
      kind: 'wait',
    });
  });

  it('completes with the delivery transaction once the escrow settled, even after the refund time', () => {
    const proof = sent('delivered', { txHash: tx(0xd), at: FILL_BY + 5n });
    const afterRefundTime = { inputTime: FILL_BY + GRACE + 100n, outputTime: FILL_BY + GRACE + 100n };
    expect(decideSettlement(filled({ route: lz(proof), escrow: 'settled', ...afterRefundTime }))).toEqual({
      kind: 'follow',
      to: 'completed',
      settlementTxHash: tx(0xd),
    });
  });

  it('waits for the delivery to be indexed before completing, so the order names the paying transaction', () => {
    expect(decideSettlement(filled({ route: lz(sent('delivered')), escrow: 'settled' }))).toMatchObject({
      kind: 'wait',
    });
    expect(
      decideSettlement(
        filled({
          route: lz(sent('delivered')),
          escrow: 'settled',
          actions: actions({ execute: confirmed(6) }),
        }),
      ),
    ).toEqual({ kind: 'follow', to: 'completed', settlementTxHash: tx(6) });
  });

  it('never refunds while a valid fill exists, and never proves once a refund is written down', () => {
    const afterRefundTime = { inputTime: FILL_BY + GRACE + 100n, outputTime: FILL_BY + GRACE + 100n };
    expect(decideSettlement(filled({ route: lz(null, FILL_BY + 1000n), ...afterRefundTime }))).toEqual({
      kind: 'prove',
    });
    expect(
      decideSettlement(
        filled({
          route: lz(null, FILL_BY + 1000n),
          ...afterRefundTime,
          actions: actions({ refund: recorded(2) }),
        }),
      ),
    ).toMatchObject({ kind: 'wait' });
    // Ferry's prove is out and no fill is seen now (reorged away): neither refund nor prove again.
    expect(
      decideSettlement(
        open({ route: lz(null), ...afterRefundTime, actions: actions({ prove: confirmed(3) }) }),
      ),
    ).toMatchObject({ kind: 'wait' });
  });
});

describe('decideSettlement: every verified message on the route can be delivered', () => {
  const late = FILL_BY + 120n;
  const gap = (state: ProofGap['state'], nonce = 3n): ProofGap =>
    state === 'unknown'
      ? { nonce, state, guid: null, txHash: null }
      : { nonce, state, guid: tx(0x33), txHash: tx(0x34) };
  const blocked = (state: ProofObservation['state'], g: ProofGap) => lz({ ...sent(state), gap: g }, late);

  it('commits a verified older message before committing or executing its own, following one at a time', () => {
    for (const state of ['verified', 'committed'] as const) {
      expect(decideSettlement(filled({ route: blocked(state, gap('verified')) }))).toEqual({
        kind: 'commit-gap',
        guid: tx(0x33),
        txHash: tx(0x34),
      });
    }
    // Ferry's commit of an older message is in flight: followed, not sent twice.
    const inFlight = actions({ commitGap: recorded(7) });
    expect(
      decideSettlement(filled({ route: blocked('committed', gap('verified')), actions: inFlight })),
    ).toMatchObject({ kind: 'wait' });
    // One mined: the next older one is committed (a new action), whatever the last one did.
    const mined = actions({ commitGap: confirmed(7) });
    expect(
      decideSettlement(filled({ route: blocked('committed', gap('verified', 4n)), actions: mined })),
    ).toMatchObject({ kind: 'commit-gap' });
    // Still the executor's turn before executeAfter, gap or not.
    expect(
      decideSettlement(filled({ route: lz({ ...sent('committed'), gap: gap('verified') }, late - 1n) })),
    ).toMatchObject({ kind: 'wait' });
  });

  it('waits while an older message is not verified or not indexed: committing it would revert', () => {
    const pending = decideSettlement(filled({ route: blocked('committed', gap('pending')) }));
    expect(pending).toMatchObject({ kind: 'wait' });
    expect(pending.kind === 'wait' && pending.reason).toMatch(/nonce 3.*DVNs/);
    expect(decideSettlement(filled({ route: blocked('committed', gap('unknown')) }))).toMatchObject({
      kind: 'wait',
    });
  });

  describe('a delivered proof the escrow skipped', () => {
    const delivery = { txHash: tx(0xd), at: FILL_BY + 5n };
    const skipped = (reason: ProofObservation['skipped'], proves = 0, now = FILL_BY + 100n) =>
      lz({ ...sent('delivered', delivery), skipped: reason }, now, proves);

    it('proves again once the deposit is active, after proveAfter from the delivery', () => {
      expect(decideSettlement(filled({ route: skipped('NotActive') }))).toEqual({
        kind: 'prove',
        afterSkip: tx(0xd),
      });
      expect(decideSettlement(filled({ route: skipped('NotActive', 0, FILL_BY + 5n + 59n) }))).toMatchObject({
        kind: 'wait',
      });
    });

    it('never for another skip, nor while the deposit is not active', () => {
      for (const reason of ['WrongTerms', 'LateFill', null] as const) {
        expect(decideSettlement(filled({ route: skipped(reason) }))).toMatchObject({ kind: 'wait' });
      }
      expect(decideSettlement(filled({ route: skipped('NotActive'), escrow: 'none' }))).toMatchObject({
        kind: 'wait',
      });
    });

    it('follows its new prove, waits for the index to see it, and stops after MAX_FERRY_PROVES', () => {
      expect(
        decideSettlement(
          filled({ route: skipped('NotActive', 1), actions: actions({ prove: recorded(3) }) }),
        ),
      ).toEqual({ kind: 'prove' });
      // Ferry's prove is mined; the newest message seen is still the skipped one.
      expect(
        decideSettlement(
          filled({ route: skipped('NotActive', 1), actions: actions({ prove: confirmed(3) }) }),
        ),
      ).toMatchObject({ kind: 'wait' });
      // Ferry's own prove was the one skipped: one more, up to the bound.
      const own = actions({ prove: confirmed(0xa) });
      expect(
        decideSettlement(filled({ route: skipped('NotActive', MAX_FERRY_PROVES - 1), actions: own })),
      ).toMatchObject({ kind: 'prove' });
      const spent = decideSettlement(filled({ route: skipped('NotActive', MAX_FERRY_PROVES), actions: own }));
      expect(spent).toMatchObject({ kind: 'wait' });
    });
  });
});

describe('settlementRecord', () => {
  const now = new Date(1_700_000_000_000);
  it('shows the message sent, verified, then delivered, and never moves back for the same message', () => {
    const first = settlementRecord(filled({ route: lz(sent('pending')) }), null, now);
    expect(first).toMatchObject({ method: 'layerzero', messageId: GUID, status: 'sent', txHash: tx(0xa) });
    const verified = settlementRecord(filled({ route: lz(sent('committed')) }), first, now);
    expect(verified).toMatchObject({ status: 'verified' });
    expect(settlementRecord(filled({ route: lz(sent('pending')) }), verified, now)).toBeNull();
    const delivered = settlementRecord(
      filled({ route: lz(sent('pending', { txHash: tx(0xd), at: FILL_BY + 7n })) }),
      verified,
      now,
    );
    expect(delivered).toMatchObject({
      status: 'delivered',
      deliveredAt: new Date(Number(FILL_BY + 7n) * 1000),
    });
    expect(
      settlementRecord(filled({ route: lz(sent('delivered')), escrow: 'settled' }), delivered, now),
    ).toBeNull();
  });

  it('on the attester route only adds the relay and the delivery to the record written at signing', () => {
    expect(settlementRecord(filled({}), null, now)).toBeNull();
    const signed = {
      method: 'attester' as const,
      messageId: tx(0xe),
      status: 'verified' as const,
      txHash: null,
      sentAt: now,
      deliveredAt: null,
    };
    expect(
      settlementRecord(filled({ actions: actions({ settle: recorded(5) }) }), signed, now),
    ).toMatchObject({
      status: 'verified',
      txHash: tx(5),
    });
    expect(settlementRecord(filled({ escrow: 'settled' }), signed, now)).toMatchObject({
      status: 'delivered',
    });
  });
});
