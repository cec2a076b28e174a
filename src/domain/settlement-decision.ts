import type { OrderStatus } from './lifecycle.ts';
import { isOpenToAnyFiller } from './open-filler.ts';
import { decideProof } from './proof-decision.ts';
import { gaveUpReason, retryOrGiveUp, revertsExhausted } from './relayer-reverts.ts';
import type { SettlementDecision } from './settlement-decision-type.ts';
import type {
  ObservedFill,
  RecordedAction,
  SettlementObservation,
  SettlementTerms,
} from './settlement-observation.ts';

/**
 * The settlement lifecycle as one pure function: given an order and what was just observed on both chains,
 * the next thing the worker must do. The worker observes and acts; every rule about money lives here.
 */

type Hex = `0x${string}`;

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * FerryFill's rule: the order's filler may fill any time; anyone may once its exclusivity has lapsed, or from the
 * start when it names no filler.
 */
export function mayFill(
  terms: Pick<SettlementTerms, 'filler' | 'exclusivityDeadline'>,
  filler: string,
  blockTimestamp: bigint,
): boolean {
  return (
    same(filler, terms.filler) ||
    isOpenToAnyFiller(terms.filler) ||
    blockTimestamp > terms.exclusivityDeadline
  );
}

/** Why a fill does not count (yet), or null when it is a valid fill at depth. */
export function fillProblems(obs: Pick<SettlementObservation, 'terms' | 'fill' | 'outputConfirmations'>) {
  const { fill, terms } = obs;
  if (!fill) return ['no fill'];
  const problems = [
    !mayFill(terms, fill.filler, fill.blockTimestamp) && 'filler',
    !same(fill.recipient, terms.recipient) && 'recipient',
    !same(fill.token, terms.outputToken) && 'token',
    fill.amount !== terms.outputAmount && 'amount',
    fill.blockTimestamp > terms.fillDeadline && 'after fillDeadline',
    fill.depth < Math.max(1, obs.outputConfirmations) && 'not at confirmations depth',
  ].filter((p): p is string => typeof p === 'string');
  return problems.length === 0 ? null : problems;
}

/** A fill that pays the order in full, by its deadline, buried under the output chain's confirmations. */
export function validFillAtDepth(obs: SettlementObservation): ObservedFill | null {
  return fillProblems(obs) === null ? obs.fill : null;
}

/** The output chain is past the order's exclusivity (and not past its fill deadline): anyone may fill it now. */
export function exclusivityLapsed(obs: Pick<SettlementObservation, 'terms' | 'outputTime'>): boolean {
  const { terms, outputTime } = obs;
  return (
    !isOpenToAnyFiller(terms.filler) &&
    outputTime > terms.exclusivityDeadline &&
    outputTime <= terms.fillDeadline
  );
}

/** The escrow's refund is open (input chain), and no valid fill can still appear (output chain). */
export function refundIsDue(obs: SettlementObservation): boolean {
  return obs.inputTime > obs.terms.fillDeadline + obs.settleGrace && obs.outputTime > obs.terms.fillDeadline;
}

/**
 * A refund written down beats a valid fill seen later: Ferry never pays twice, so decideOpen waits instead of
 * following or settling such a fill. A refund may also be written down between an observation and the move it led
 * to, so a move to `filled` holds only while none is live: the chain action whose live record forbids moving an
 * order to `to` (the store's status update is conditional on its absence).
 */
export function actionForbiddingMove(to: OrderStatus): 'refund' | null {
  return to === 'filled' ? 'refund' : null;
}

/** Actions that (may) release the escrow to the filler: the attester's relay, and LayerZero's prove and delivery. */
export const RELEASE_ACTIONS = ['settle', 'prove', 'commit', 'execute'] as const;

export function decideSettlement(obs: SettlementObservation): SettlementDecision {
  switch (obs.status) {
    case 'created':
      return decideCreated(obs);
    case 'deposited':
    case 'filled':
      return decideOpen(obs);
    case 'completed':
    case 'failed':
    case 'refunded':
      return { kind: 'done' };
  }
}

function decideCreated(obs: SettlementObservation): SettlementDecision {
  const deposit = obs.actions.deposit;
  if (obs.escrow !== 'none') {
    // Ferry's own deposit still in flight: finish it first so the order keeps its transaction hash.
    if (deposit?.status === 'recorded') return { kind: 'deposit' };
    return {
      kind: 'follow',
      to: 'deposited',
      ...(deposit?.status === 'confirmed' ? { srcChainTxHash: deposit.txHash } : {}),
    };
  }
  // Someone's deposit (the offerer's own, Ferry's) is in a block not yet at depth: follow it once it is.
  if (obs.escrowAtLatest !== null && obs.escrowAtLatest !== 'none') {
    return { kind: 'wait', reason: 'a deposit is on chain but not yet at confirmations depth' };
  }
  // A deposit that passed its simulation and still reverted on chain, too often: the offerer (a contract that
  // answers the mined transaction differently) is not given the relayer's gas until openDeadline.
  if (deposit?.status === 'reverted' && revertsExhausted(deposit.reverted ?? 0)) {
    return { kind: 'fail', reason: gaveUpReason('deposit', deposit.reverted ?? 0, deposit.txHash) };
  }
  // Past openDeadline in a block that is already final, with no deposit in it: no deposit can ever land, so
  // failing cannot be contradicted later (this is the only way a `created` order fails).
  if (obs.inputTime > obs.terms.openDeadline) {
    return { kind: 'fail', reason: `${shortfallOrRevert(obs)}the deposit deadline (openDeadline) passed` };
  }
  if (deposit?.status === 'recorded') return { kind: 'deposit' };
  if (deposit?.status === 'confirmed') return { kind: 'wait', reason: 'deposit not yet at depth' };
  const check = obs.depositCheck;
  if (!check) return { kind: 'wait', reason: 'offerer funds not observed' };
  const shortfall = shortfallReason(check);
  // The offerer's approval (or incoming funds) may be in flight: retry until openDeadline.
  if (shortfall) return { kind: 'wait', reason: shortfall };
  // A paused token, a deposit racing ours: retried until openDeadline, like a shortfall.
  if (check.revert) return { kind: 'wait', reason: `deposit would revert: ${check.revert}` };
  return deposit?.status === 'reverted' ? { kind: 'deposit', retryOf: deposit.txHash } : { kind: 'deposit' };
}

function shortfallReason(check: NonNullable<SettlementObservation['depositCheck']>): string | null {
  if (check.balance < check.inputAmount) {
    return `INSUFFICIENT_BALANCE: the offerer holds ${check.balance} of the input token, below ${check.inputAmount}`;
  }
  if (check.allowance < check.inputAmount) {
    return `INSUFFICIENT_ALLOWANCE: the offerer approved ${check.allowance} of the input token to the escrow, below ${check.inputAmount}`;
  }
  return null;
}

function shortfallOrRevert(obs: SettlementObservation): string {
  const shortfall = obs.depositCheck ? shortfallReason(obs.depositCheck) : null;
  if (shortfall) return `${shortfall}; `;
  if (obs.depositCheck?.revert) return `deposit would revert: ${obs.depositCheck.revert}; `;
  if (obs.actions.deposit?.status === 'reverted') {
    return `deposit transaction ${obs.actions.deposit.txHash} reverted; `;
  }
  return '';
}

/** `deposited` or `filled`: the escrow holds (or held) the input. */
function decideOpen(obs: SettlementObservation): SettlementDecision {
  const { settle, refund } = obs.actions;
  const fill = validFillAtDepth(obs);
  switch (obs.escrow) {
    case 'settled': {
      const settlementTxHash = deliveryTxHash(obs);
      // The escrow is read at a block the fill index may not have scanned yet: wait a pass for the delivery's log,
      // so the completed order names the transaction that paid the filler.
      if (obs.route.method === 'layerzero' && !settlementTxHash) {
        return { kind: 'wait', reason: 'the escrow settled; waiting for the fill index to see the delivery' };
      }
      return {
        kind: 'follow',
        to: 'completed',
        ...(settlementTxHash ? { settlementTxHash } : {}),
        ...(fill && obs.status === 'deposited' ? { dstChainTxHash: fill.txHash, filledBy: fill.filler } : {}),
      };
    }
    case 'refunded': {
      const ours = refund && refund.status !== 'reverted';
      return {
        kind: 'follow',
        to: 'refunded',
        ...(ours ? { settlementTxHash: refund.txHash } : {}),
        failureReason: ours
          ? 'not filled before the fill deadline; the input was returned to the offerer'
          : 'the escrow was refunded to the offerer on chain',
      };
    }
    case 'none':
      // The deposit left the canonical chain after it was followed; only the chain can bring it back.
      return { kind: 'wait', reason: 'the escrow no longer holds the deposit' };
    case 'active':
      break;
  }
  // An action spent without effect (reverted) no longer stands in the way of its rival; it may be sent again.
  const liveSettle = liveRelease(obs);
  const liveRefund = refund && refund.status !== 'reverted' ? refund : null;
  if (liveSettle && liveRefund)
    return { kind: 'wait', reason: 'both a settle and a refund are written down' };
  // Follow the relay written down (when a valid fill at depth was seen) to its receipt, fill or not now.
  if (obs.route.method === 'attester' && settle && settle.status !== 'reverted') {
    return { kind: 'attest-and-settle' };
  }
  // Ferry's prove or delivery is out while the fill is not (or no longer) seen at depth: the escrow decides.
  if (liveSettle && !liveRefund && !fill) {
    return { kind: 'wait', reason: 'a proof of the fill Ferry sent is on its way to the escrow' };
  }
  if (liveRefund) {
    // A valid fill seen after a refund was written down: neither pay twice nor keep refunding blindly.
    if (fill) return { kind: 'wait', reason: 'a refund is written down but a valid fill exists' };
    return { kind: 'refund' };
  }
  if (fill) {
    if (obs.status === 'deposited') {
      return { kind: 'follow', to: 'filled', dstChainTxHash: fill.txHash, filledBy: fill.filler };
    }
    if (obs.route.method === 'layerzero') return decideProof(obs, fill, obs.route);
    // Never given up: on an attester chain only Ferry's attester can settle, so giving up would hand a filler who
    // already paid to the offerer's refund. Each retry is simulated first, and no outsider can make a settle revert
    // (the escrow credits a payout its token refuses), so this spends no gas an outsider chose.
    return settle ? { kind: 'attest-and-settle', retryOf: settle.txHash } : { kind: 'attest-and-settle' };
  }
  if (refundIsDue(obs)) return refund ? retryOrGiveUp('refund', refund) : { kind: 'refund' };
  if (obs.status === 'deposited' && !obs.exclusivityLapsed && exclusivityLapsed(obs))
    return { kind: 'announce-open' };
  return { kind: 'wait', reason: 'waiting for a valid fill at depth or the refund time' };
}

/** A release action written down that may still take effect, or null. */
function liveRelease(obs: SettlementObservation): RecordedAction | null {
  for (const kind of RELEASE_ACTIONS) {
    const action = obs.actions[kind];
    if (action && action.status !== 'reverted') return action;
  }
  return null;
}

/** The transaction that settled the escrow as far as Ferry knows: the message's delivery, or Ferry's relay. */
function deliveryTxHash(obs: SettlementObservation): Hex | null {
  if (obs.route.method === 'layerzero') {
    if (obs.route.proof?.delivered) return obs.route.proof.delivered.txHash;
    const execute = obs.actions.execute;
    return execute?.status === 'confirmed' ? execute.txHash : null;
  }
  const settle = obs.actions.settle;
  return settle && settle.status !== 'reverted' ? settle.txHash : null;
}
