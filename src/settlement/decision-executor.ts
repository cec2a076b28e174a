import type { FastifyBaseLogger } from 'fastify';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import type { ContractCall } from '../chains/settlement/contract-call.ts';
import { proveOptions } from '../chains/settlement/prove-options.ts';
import { RevertError, type SettlementChain } from '../chains/settlement/settlement-chain.ts';
import { WouldRevertError } from '../chains/transactions/tx-estimate.ts';
import type { Clock } from '../domain/clock.ts';
import { FerryError } from '../domain/ferry-error.ts';
import type { OrderChange } from '../domain/lifecycle.ts';
import type { OrderTerms } from '../domain/order-typed-data.ts';
import type { Order, OrderSettlement } from '../domain/records.ts';
import type { SettlementDecision } from '../domain/settlement-decision-type.ts';
import type { SettlementObservation } from '../domain/settlement-observation.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import { type ChainActionKind, noteOrderProblem } from '../store/ledgers/settlement-store.ts';
import { messageOrdersToServe } from '../store/ledgers/shared-actions-store.ts';
import { createAttesting } from './attesting.ts';
import type { ActionOutcome, ChainActionExecutor } from './chain-action-executor.ts';
import { orderDepositCall } from './order-deposit-call.ts';
import { announceOpen, moveOrder, noteGivenUp, SETTLEMENT_ACTOR } from './order-writes.ts';
import type { ProveBatcher } from './prove-batcher.ts';
import { SettlementError } from './settlement-error.ts';

/**
 * `now`: walk the order on in this pass. `soon`: it waits on a chain (a receipt, a fill, depth, a deadline, an
 * allowance), so the next pass looks at it, whatever woke that pass. `later`: it is done.
 */
export type StepResult = { readonly again: 'now' | 'soon' | 'later' };

/** A settle or refund that would revert again when retried: the order waits with backoff, the reason on it. */
export class RetryLaterError extends FerryError {
  override readonly name = 'RetryLaterError';
  constructor(
    readonly reason: string,
    cause: RevertError,
  ) {
    // Retryable by definition: the order is tried again after its backoff.
    super(reason, { cause, retryable: true });
  }
}

/** Carries out the settlement decision for one order. */
export interface DecisionExecutor {
  /**
   * `settlement`: the order's proof message as the chains now show it, when that differs from what the order
   * says; written with the decision's move, or on its own, always with the order's event.
   */
  act(
    order: Order,
    terms: OrderTerms,
    decision: SettlementDecision,
    obs: SettlementObservation,
    settlement: OrderSettlement | null,
  ): Promise<StepResult>;
}

const ACTOR = SETTLEMENT_ACTOR;

/** A sent action that reached its receipt is looked at again at once; one still in flight, soon. */
function again(outcome: ActionOutcome): StepResult {
  return outcome.status === 'success' || outcome.status === 'reverted' ? { again: 'now' } : { again: 'soon' };
}

/**
 * While `call` would revert (a paused token, a blacklisted address): nothing is sent, the reason is written on the
 * order once (logged at error and counted), and the order backs off (RetryLaterError), never a hot loop.
 */
async function refuseWhileReverting(
  deps: {
    readonly database: FerryDatabase;
    readonly chain: SettlementChain;
    readonly clock: Clock;
    readonly log: FastifyBaseLogger;
    readonly relayer: PrivateKeyAccount;
    readonly metrics?: FerryMetrics;
  },
  order: Order,
  kind: ChainActionKind,
  call: ContractCall,
  what: string,
): Promise<void> {
  try {
    await deps.chain.simulate(call, deps.relayer.address);
  } catch (error) {
    if (!(error instanceof RevertError)) throw error;
    const reason = `${what} (${error.reason}); retrying with backoff`;
    if (await noteOrderProblem(deps.database.db, order.id, order.status, reason, deps.clock.now(), ACTOR)) {
      deps.metrics?.settlementReverts.inc({ chain: call.chain, kind });
      deps.log.error({ orderId: order.id, kind, reason: error.reason }, `${kind} keeps reverting`);
    }
    throw new RetryLaterError(reason, error);
  }
}

/** What sending an action takes (sendAction, after its deps). */
type SendArgs = Parameters<typeof sendAction> extends [unknown, ...infer Rest] ? Rest : never;

/** What moving an order takes (moveOrder, after its deps). */
type MoveArgs = [Order, OrderChange | null, OrderSettlement | null, SettlementObservation];

/**
 * One message proves a batch of orders: its commit or execute is sent once, for this order, and linked to the
 * message's other orders that still need it, which then follow it as their own (shared-actions-store.ts).
 */
async function messageOthers(
  database: FerryDatabase,
  order: Order,
  kind: 'commit' | 'execute',
  obs: SettlementObservation,
): Promise<string[]> {
  const proof = obs.route.method === 'layerzero' ? obs.route.proof : null;
  if (!proof) return [];
  return messageOrdersToServe(database.db, {
    messageId: proof.guid,
    leader: order.id,
    kind,
    status: order.status,
  });
}

export interface DecisionExecutorDeps {
  readonly database: FerryDatabase;
  readonly registry: ChainRegistry;
  readonly chain: SettlementChain;
  readonly actions: ChainActionExecutor;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  readonly relayer: PrivateKeyAccount;
  readonly attester: PrivateKeyAccount;
  readonly metrics?: FerryMetrics;
  /** Sets first fallback proves aside for one prove(orders) per route at the pass's end. */
  readonly batcher?: ProveBatcher;
}

/**
 * Sends (or follows) the order's action of `kind`. A retry after a revert is simulated first and sent only if it
 * would not revert again; a first settle or refund the node refuses to estimate is simulated too, so a revert
 * (a blacklisted offerer) waits the same way, its reason on the order, instead of failing the step bare.
 */
async function sendAction(
  deps: DecisionExecutorDeps,
  order: Order,
  kind: ChainActionKind,
  call: ContractCall,
  retryOf: Hex | undefined,
  mode?: 'repeat',
  others?: readonly string[],
): Promise<StepResult> {
  if (retryOf) {
    const what = `${kind} transaction ${retryOf} reverted and would revert again`;
    await refuseWhileReverting(deps, order, kind, call, what);
    deps.metrics?.settlementReverts.inc({ chain: call.chain, kind });
    deps.log.warn({ orderId: order.id, kind, txHash: retryOf }, `${kind} reverted; sending it again`);
  }
  const expectStatus = kind === 'deposit' ? 'created' : order.status;
  // A REPEATABLE kind (a prove again, the next older commit) is a new action whatever the last one did.
  const retry = retryOf !== undefined || mode === 'repeat';
  try {
    return again(
      await deps.actions.execute({
        orderId: order.id,
        kind,
        call,
        account: deps.relayer,
        expectStatus,
        retry,
        others,
      }),
    );
  } catch (error) {
    // A transaction the node refused to estimate was never sent; if it reverts, it waits like a retry.
    if (error instanceof WouldRevertError && (kind === 'settle' || kind === 'refund'))
      await refuseWhileReverting(deps, order, kind, call, `${kind} would revert`);
    throw error;
  }
}

/**
 * Chain actions only send; the next decision follows what they did on chain. Every status change goes through
 * `move`: one database transaction together with its event.
 */
export function createDecisionExecutor(deps: DecisionExecutorDeps): DecisionExecutor {
  const { database, chain, log } = deps;
  const send = (...args: SendArgs) => sendAction(deps, ...args);

  const move = (...args: MoveArgs) => moveOrder(deps, ...args);

  const attesting = createAttesting({ ...deps, actor: ACTOR });

  /** The attester's relay: the attestation is kept and handed to the filler before Ferry relays it itself. */
  async function settleCall(order: Order, terms: OrderTerms, obs: SettlementObservation) {
    const kept = await attesting.attest(order, terms, obs);
    return chain.relayFillCall(order.inputChain, terms, kept.filler, kept.fillTime, kept.signature);
  }

  /** Carries out one decision. Chain actions only send; the next decision follows what they did on chain. */
  async function act(
    order: Order,
    terms: OrderTerms,
    decision: SettlementDecision,
    obs: SettlementObservation,
    settlement: OrderSettlement | null,
  ): Promise<StepResult> {
    if (settlement && decision.kind !== 'follow') {
      if (!(await move(order, null, settlement, obs))) return { again: 'soon' };
      order = { ...order, settlement };
    }
    switch (decision.kind) {
      case 'deposit':
        return send(
          order,
          'deposit',
          (await orderDepositCall(database, chain, order, terms)).call,
          decision.retryOf,
        );
      case 'attest-and-settle':
        return send(order, 'settle', await settleCall(order, terms, obs), decision.retryOf);
      case 'prove': {
        if (deferred(deps.batcher, decision, obs, order, terms)) return { again: 'soon' };
        const call = await proveCall(chain, order, terms, decision.afterSkip && log);
        return send(order, 'prove', call, decision.retryOf, decision.afterSkip && 'repeat');
      }
      case 'commit-gap':
        return send(order, 'commit-gap', await gapCommitCall(chain, order, decision), undefined, 'repeat');
      case 'commit':
      case 'execute':
        return send(
          order,
          decision.kind,
          await deliveryCall(chain, order, obs, decision.kind),
          decision.retryOf,
          undefined,
          await messageOthers(database, order, decision.kind, obs),
        );
      case 'refund':
        return send(order, 'refund', chain.refundCall(order.inputChain, terms), decision.retryOf);
      case 'follow': {
        const { kind: _, to, ...hashes } = decision;
        const moved = await move(order, { status: to, ...hashes }, settlement, obs);
        return moved ? { again: 'now' } : { again: 'soon' };
      }
      case 'fail':
        await move(order, { status: 'failed', failureReason: decision.reason }, null, obs);
        return { again: 'later' };
      case 'announce-open':
        // A fill not yet at depth would make the announcement noise that sends other LPs to a filled order.
        if (!(await chain.filledAtLatest(order.outputChain, order.blockchainOrderId)))
          await announceOpen(deps, order);
        return { again: 'soon' };
      case 'give-up':
        await noteGivenUp(deps, order, decision.action, decision.reason);
        return { again: 'soon' };
      case 'wait':
        log.debug({ orderId: order.id, status: order.status, reason: decision.reason }, 'order waits');
        return { again: 'soon' };
      case 'done':
        return { again: 'later' };
    }
  }

  return { act };
}

/** A first fallback prove waits for the pass's end, to go out with the others of its route (prove-batcher.ts). */
function deferred(
  batcher: ProveBatcher | undefined,
  decision: Extract<SettlementDecision, { kind: 'prove' }>,
  obs: SettlementObservation,
  order: Order,
  terms: OrderTerms,
): boolean {
  if (!batcher || decision.retryOf || decision.afterSkip || obs.actions.prove) return false;
  if (!obs.fill) return false;
  batcher.defer(order, terms, obs.fill.filler);
  return true;
}

/**
 * FerryApp.prove([order]) on the output chain, paying the fee quoted now. `proveAgain`: the escrow skipped the
 * delivered proof (the deposit was not active yet), and this is logged on it.
 */
async function proveCall(
  chain: SettlementChain,
  order: Order,
  terms: OrderTerms,
  proveAgain: FastifyBaseLogger | undefined,
) {
  proveAgain?.warn(
    { orderId: order.id },
    'the escrow skipped the delivered proof (deposit not active yet); proving again',
  );
  const options = proveOptions(1);
  const fee = await chain.quoteProve(order.outputChain, [terms], options);
  return chain.proveCall(order.outputChain, [terms], fee, options);
}

/** The commit or the delivery of the order's proof message on the input chain. */
async function deliveryCall(
  chain: SettlementChain,
  order: Order,
  obs: SettlementObservation,
  kind: 'commit' | 'execute',
) {
  const proof = obs.route.method === 'layerzero' ? obs.route.proof : null;
  if (!proof) throw new SettlementError(`order ${order.id} has no proof message to ${kind}`);
  const packet = await chain.proofPacket(order.outputChain, proof.txHash, proof.guid);
  if (!packet) throw new SettlementError(`no LayerZero packet ${proof.guid} in transaction ${proof.txHash}`);
  return kind === 'commit'
    ? chain.commitCall(order.inputChain, packet)
    : chain.lzReceiveCall(order.inputChain, packet);
}

/** The commit of an older message on the order's route (sent in `txHash`) that blocks its proof's delivery. */
async function gapCommitCall(
  chain: SettlementChain,
  order: Order,
  { txHash, guid }: { txHash: Hex; guid: Hex },
) {
  const packet = await chain.proofPacket(order.outputChain, txHash, guid);
  if (!packet) throw new SettlementError(`no LayerZero packet ${guid} in transaction ${txHash}`);
  return chain.commitCall(order.inputChain, packet);
}
