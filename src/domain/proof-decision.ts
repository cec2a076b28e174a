import type { OrderSettlement } from './records.ts';
import { gaveUpReason, retryOrGiveUp, revertsExhausted } from './relayer-reverts.ts';
import type { SettlementDecision } from './settlement-decision-type.ts';
import type {
  ObservedFill,
  ProofObservation,
  RecordedAction,
  SettlementObservation,
  SettlementRoute,
} from './settlement-observation.ts';

/**
 * How many proofs of an order Ferry sends at most (its fallback prove and the proves again after the escrow skipped
 * a delivered proof): a skip that keeps happening is not worth the relayer's gas and LayerZero fees.
 */
export const MAX_FERRY_PROVES = 3;

type LayerZeroRoute = Extract<SettlementRoute, { method: 'layerzero' }>;

/** The action of `kind` written down: follow it while in flight, send it again once spent without effect. */
function sendOrFollow(
  kind: 'prove' | 'commit' | 'execute',
  action: RecordedAction | null | undefined,
): SettlementDecision {
  if (!action) return { kind };
  if (action.status === 'recorded') return { kind };
  if (action.status === 'reverted') return retryOrGiveUp(kind, action);
  return { kind: 'wait', reason: `the ${kind} Ferry sent is mined; waiting for its effect at depth` };
}

/**
 * A valid fill at depth on a LayerZero route, escrow still active: the filler (or anyone) proves it; the DVNs
 * verify and LayerZero's executor delivers. The worker steps in only when one of them is late: it proves a fill
 * nobody proved after `proveAfter`, and commits and executes a verified message nobody delivered after
 * `executeAfter` (all permissionless calls).
 */
export function decideProof(
  obs: SettlementObservation,
  fill: ObservedFill,
  route: LayerZeroRoute,
): SettlementDecision {
  const { prove, commit, execute } = obs.actions;
  // biome-ignore lint/complexity/useMathMinMax: bigints; Math.max takes numbers only
  const clock = route.now > obs.outputTime ? route.now : obs.outputTime;
  const proof = route.proof;
  if (!proof) {
    if (prove) return sendOrFollow('prove', prove);
    if (clock < fill.blockTimestamp + route.proveAfter) {
      return { kind: 'wait', reason: "waiting for the filler's proof message" };
    }
    return { kind: 'prove' };
  }
  if (proof.state === 'delivered' || proof.delivered) return decideDelivered(obs, proof, route, clock);
  if (proof.state === 'pending') {
    return { kind: 'wait', reason: 'waiting for the DVNs to verify the proof message' };
  }
  if (clock < proof.sentAt + route.executeAfter) {
    return { kind: 'wait', reason: "waiting for LayerZero's executor to deliver the proof message" };
  }
  // The endpoint executes a path's nonces in order: every older message must be committed first, whoever sent it.
  const gap = proof.gap;
  if (gap) {
    if (gap.state !== 'verified' || !gap.guid || !gap.txHash) {
      const why = gap.state === 'pending' ? 'waits for its DVNs' : 'is not in the proof index';
      return {
        kind: 'wait',
        reason: `the older message with nonce ${gap.nonce} on the route ${why}; the endpoint delivers in nonce order`,
      };
    }
    const gapCommit = obs.actions.commitGap;
    if (gapCommit?.status === 'recorded') {
      return { kind: 'wait', reason: 'the commit of an older message on the route Ferry sent is in flight' };
    }
    if (gapCommit?.status === 'reverted' && revertsExhausted(gapCommit.reverted ?? 0)) {
      const reason = gaveUpReason('commit-gap', gapCommit.reverted ?? 0, gapCommit.txHash);
      return { kind: 'give-up', action: 'commit-gap', reason };
    }
    return { kind: 'commit-gap', guid: gap.guid, txHash: gap.txHash };
  }
  return proof.state === 'verified' ? sendOrFollow('commit', commit) : sendOrFollow('execute', execute);
}

/**
 * The message was delivered yet the escrow still holds the deposit. A proof delivered while the deposit was not
 * yet active (SettleSkipped NotActive) settles nothing, and nobody would send another: Ferry proves again once the
 * filler had `proveAfter` to do it, as long as the deposit is now active and at most MAX_FERRY_PROVES times. Any
 * other skip (wrong terms, a late fill) would be skipped again.
 */
function decideDelivered(
  obs: SettlementObservation,
  proof: ProofObservation,
  route: LayerZeroRoute,
  clock: bigint,
): SettlementDecision {
  const waiting = {
    kind: 'wait',
    reason: 'the proof message was delivered; waiting for the escrow at depth',
  } as const;
  if (proof.skipped !== 'NotActive' || obs.escrow !== 'active' || !proof.delivered) return waiting;
  const prove = obs.actions.prove;
  if (prove?.status === 'recorded') return { kind: 'prove' };
  // Ferry's prove is mined but its message is not the newest one seen yet: the index catches up first.
  if (prove?.status === 'confirmed' && prove.txHash.toLowerCase() !== proof.txHash.toLowerCase()) {
    return { kind: 'wait', reason: "waiting for the index to see Ferry's new proof message" };
  }
  if ((route.proves ?? 0) >= MAX_FERRY_PROVES) {
    return {
      kind: 'wait',
      reason: `the escrow skipped the delivered proof (NotActive) and Ferry already proved ${MAX_FERRY_PROVES} times`,
    };
  }
  if (clock < proof.delivered.at + route.proveAfter) {
    return {
      kind: 'wait',
      reason: 'the escrow skipped the delivered proof; waiting for the filler to prove again',
    };
  }
  return { kind: 'prove', afterSkip: proof.delivered.txHash };
}

/**
 * The order's LayerZero settlement record as the chains show it, or null when `current` already says so (or
 * there is nothing to show yet). A status only moves forward for the same message; a newer message replaces it.
 */
export function layerZeroSettlement(
  obs: SettlementObservation,
  current: OrderSettlement | null,
  now: Date,
): OrderSettlement | null {
  if (obs.route.method !== 'layerzero' || !obs.route.proof) return null;
  const proof = obs.route.proof;
  const delivered = obs.escrow === 'settled' || proof.state === 'delivered' || proof.delivered !== null;
  const verified = proof.state === 'verified' || proof.state === 'committed';
  const status = delivered ? 'delivered' : verified ? 'verified' : 'sent';
  const sameMessage = current?.messageId?.toLowerCase() === proof.guid.toLowerCase();
  if (sameMessage && current && RANK[current.status] >= RANK[status]) return null;
  return {
    method: 'layerzero',
    messageId: proof.guid,
    status,
    txHash: proof.txHash,
    sentAt: new Date(Number(proof.sentAt) * 1000),
    deliveredAt: delivered ? (proof.delivered ? new Date(Number(proof.delivered.at) * 1000) : now) : null,
  };
}

const RANK = { sent: 0, verified: 1, delivered: 2 } as const;

/**
 * The order's settlement record as the chains now show it, or null when the order already says so. Attester:
 * written when the attestation is signed (`verified`); here only its relay's transaction and `delivered` once the
 * escrow settled.
 */
export function settlementRecord(
  obs: SettlementObservation,
  current: OrderSettlement | null,
  now: Date,
): OrderSettlement | null {
  if (obs.status !== 'deposited' && obs.status !== 'filled') return null;
  if (obs.route.method === 'layerzero') return layerZeroSettlement(obs, current, now);
  if (current?.method !== 'attester') return null;
  const settle = obs.actions.settle;
  const txHash = settle && settle.status !== 'reverted' ? settle.txHash : current.txHash;
  const status = obs.escrow === 'settled' ? 'delivered' : current.status;
  if (status === current.status && txHash === current.txHash) return null;
  return { ...current, status, txHash, deliveredAt: status === 'delivered' ? now : null };
}
