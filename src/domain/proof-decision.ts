import type { OrderSettlement } from './records.ts';
import { retryOrGiveUp } from './relayer-reverts.ts';
import type {
  ObservedFill,
  RecordedAction,
  SettlementDecision,
  SettlementObservation,
} from './settlement-decision.ts';

type Hex = `0x${string}`;

/**
 * Where a LayerZero proof message stands on the input chain: `pending` (the DVNs have not all verified it),
 * `verified` (they have: anyone may commit it), `committed` (the endpoint holds it: anyone may execute it),
 * `delivered` (executed).
 */
export type ProofState = 'pending' | 'verified' | 'committed' | 'delivered';

/** The newest proof message FerryApp sent for the order (ProofSent at the output chain's confirmations depth). */
export interface ProofObservation {
  readonly guid: Hex;
  /** The transaction that sent it (the filler's fillAndProve or anyone's prove). */
  readonly txHash: Hex;
  /** ProofSent's block timestamp (output-chain time). */
  readonly sentAt: bigint;
  readonly state: ProofState;
  /** ProofDelivered on the input chain, when the index has seen it. */
  readonly delivered: { readonly txHash: Hex; readonly at: bigint } | null;
}

/** How the order's fill reaches its escrow: the input chain's settlement method, and for LayerZero what was seen. */
export type SettlementRoute =
  | { readonly method: 'attester' }
  | {
      readonly method: 'layerzero';
      readonly proof: ProofObservation | null;
      /** The output chain's proveAfterSeconds. */
      readonly proveAfter: bigint;
      /** The input chain's executeAfterSeconds. */
      readonly executeAfter: bigint;
      /** The worker's clock (unix seconds): an idle devnet's chain time stands still. */
      readonly now: bigint;
    };

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
  if (proof.state === 'delivered') {
    return { kind: 'wait', reason: 'the proof message was delivered; waiting for the escrow at depth' };
  }
  if (proof.state === 'pending') {
    return { kind: 'wait', reason: 'waiting for the DVNs to verify the proof message' };
  }
  if (clock < proof.sentAt + route.executeAfter) {
    return { kind: 'wait', reason: "waiting for LayerZero's executor to deliver the proof message" };
  }
  return proof.state === 'verified' ? sendOrFollow('commit', commit) : sendOrFollow('execute', execute);
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
