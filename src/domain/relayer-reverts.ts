import type { SettlementDecision } from './settlement-decision-type.ts';
import type { RecordedAction } from './settlement-observation.ts';

/**
 * How far anyone can make the relayer pay for transactions that revert. A simulation runs as the transaction will
 * (its sender, its fees), yet a contract can still answer the mined transaction differently (a state change slipped
 * in before it, a block property): so the reverts themselves are bounded, per order and per account.
 */

/** An order's relayer transactions of one kind (deposit, settle, refund, prove, commit, execute) that may revert. */
export const MAX_REVERTED_SENDS = 2;

/**
 * Whether the relayer must not send an action of this kind for the order again: `reverted` of them reverted on
 * chain (a cancel or a nonce taken elsewhere is no revert and does not count).
 */
export function revertsExhausted(reverted: number): boolean {
  return reverted >= MAX_REVERTED_SENDS;
}

/** Why the relayer gave up an action, as the order and its events show it. */
export function gaveUpReason(kind: string, reverted: number, lastTxHash: string): string {
  return (
    `RELAYER_REVERTS: ${reverted} ${kind} transactions reverted on chain after passing simulation ` +
    `(last ${lastTxHash}); the relayer does not send it again`
  );
}

/** The account-wide rule: `limit` reverts within `windowSeconds` refuse the money mover's new swaps. */
export interface RevertThrottle {
  readonly limit: number;
  readonly windowSeconds: number;
}

/**
 * The chain action kinds whose reverts the order's money mover causes (its signature, its funds). Not a refund: since
 * the escrow credits a refund the token refuses, a refund reverts only when someone else released the deposit first.
 * And only deposits of orders that never got deposited (see moneyMoverRevertTimes): a deposit that reverted because
 * someone else submitted the same signed order first is no doing of the money mover's.
 */
export const MONEY_MOVER_REVERT_KINDS = ['deposit'] as const;

/**
 * When a money mover may swap again: null while fewer than `limit` of its reverts (unix ms, any order) fall in the
 * window ending `now`; otherwise the moment the oldest of its `limit` newest leaves the window.
 */
export function throttledUntil(
  revertTimes: readonly number[],
  now: number,
  rule: RevertThrottle,
): number | null {
  const windowMs = rule.windowSeconds * 1000;
  const recent = revertTimes.filter((t) => t > now - windowMs).sort((a, b) => b - a);
  const oldestCounted = recent[rule.limit - 1];
  return oldestCounted === undefined ? null : oldestCounted + windowMs;
}

/** Every relayer action but the attester's settle, which is never given up (see decideOpen). */
type RetryKind = 'refund' | 'prove' | 'commit' | 'execute';

/**
 * The next send of an action whose last one reverted (`retryOf`), unless the order's actions of the kind reverted
 * on chain MAX_REVERTED_SENDS times already: then the relayer gives up on it.
 */
export function retryOrGiveUp(kind: RetryKind, last: RecordedAction): SettlementDecision {
  const reverted = last.reverted ?? 0;
  if (revertsExhausted(reverted)) {
    return { kind: 'give-up', action: kind, reason: gaveUpReason(kind, reverted, last.txHash) };
  }
  return { kind, retryOf: last.txHash };
}
