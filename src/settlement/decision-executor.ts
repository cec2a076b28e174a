import type { FastifyBaseLogger } from 'fastify';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import { fillAttestationTypedData } from '../chains/fill-attestation.ts';
import { type ContractCall, RevertError, type SettlementChain } from '../chains/settlement-chain.ts';
import type { Clock } from '../domain/clock.ts';
import { FerryError } from '../domain/ferry-error.ts';
import type { OrderChange } from '../domain/lifecycle.ts';
import type { OrderTerms } from '../domain/order-typed-data.ts';
import { publicOrderView } from '../domain/public-views.ts';
import type { Order } from '../domain/records.ts';
import type { SettlementDecision } from '../domain/settlement-decision.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import type { FerryDatabase } from '../store/database.ts';
import { findOrder } from '../store/orders-store.ts';
import { type ChainActionKind, noteOrderProblem, transitionOrder } from '../store/settlement-store.ts';
import type { ActionOutcome, ChainActionExecutor } from './chain-action-executor.ts';
import { orderDepositCall } from './order-deposit-call.ts';

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
  act(order: Order, terms: OrderTerms, decision: SettlementDecision): Promise<StepResult>;
}

const ACTOR = 'settlement-worker';

/** A sent action that reached its receipt is looked at again at once; one still in flight, soon. */
function again(outcome: ActionOutcome): StepResult {
  return outcome.status === 'success' || outcome.status === 'reverted' ? { again: 'now' } : { again: 'soon' };
}

/**
 * Chain actions only send; the next decision follows what they did on chain. Every status change goes through
 * `move`: one database transaction together with its event.
 */
export function createDecisionExecutor(deps: {
  readonly database: FerryDatabase;
  readonly registry: ChainRegistry;
  readonly chain: SettlementChain;
  readonly actions: ChainActionExecutor;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  readonly relayer: PrivateKeyAccount;
  readonly attester: PrivateKeyAccount;
  readonly metrics?: FerryMetrics;
}): DecisionExecutor {
  const { database, chain, actions, clock, log, relayer, attester } = deps;

  async function move(order: Order, change: OrderChange): Promise<boolean> {
    const now = clock.now();
    const moved = await database.transaction(async (trx, uow) => {
      if (!(await transitionOrder(trx, order.id, order.status, change, now, ACTOR))) return null;
      const updated = await findOrder(trx, order.id);
      if (!updated) return null;
      uow.emit({
        type: 'order.updated',
        occurredAt: now,
        data: publicOrderView(updated),
        accountIds: [updated.moneyMoverAccountId, updated.liquidityProviderAccountId],
      });
      return updated;
    });
    if (moved) {
      log.info({ orderId: order.id, from: order.status, to: change.status }, 'order moved');
    }
    return moved !== null;
  }

  async function settleCall(order: Order) {
    const inputChain = deps.registry.chain(order.inputChain);
    if (!inputChain?.contracts.messenger) throw new Error(`chain ${order.inputChain} has no messenger`);
    const attestation = await attester.signTypedData(
      fillAttestationTypedData({
        messenger: inputChain.contracts.messenger,
        escrow: inputChain.contracts.escrow,
        inputChainId: inputChain.chainId,
        orderHash: order.blockchainOrderId,
      }),
    );
    return chain.relayFillCall(order.inputChain, order.blockchainOrderId, attestation);
  }

  /**
   * Sends (or follows) the order's action of `kind`. A retry after a revert is simulated first: while it would
   * revert again (a paused token, a blacklisted address) nothing is sent, the reason is written on the order
   * once, and the order backs off (RetryLaterError), never a hot loop.
   */
  async function send(
    order: Order,
    kind: ChainActionKind,
    call: ContractCall,
    retryOf: Hex | undefined,
  ): Promise<StepResult> {
    if (retryOf) {
      try {
        await chain.simulate(call, relayer.address, kind === 'settle' ? 'messenger' : 'escrow');
      } catch (error) {
        if (!(error instanceof RevertError)) throw error;
        const reason = `${kind} transaction ${retryOf} reverted and would revert again (${error.reason}); retrying with backoff`;
        if (await noteOrderProblem(database.db, order.id, order.status, reason, clock.now(), ACTOR)) {
          deps.metrics?.settlementReverts.inc({ chain: call.chain, kind });
          log.error(
            { orderId: order.id, kind, txHash: retryOf, reason: error.reason },
            `${kind} keeps reverting`,
          );
        }
        throw new RetryLaterError(reason, error);
      }
      deps.metrics?.settlementReverts.inc({ chain: call.chain, kind });
      log.warn({ orderId: order.id, kind, txHash: retryOf }, `${kind} reverted; sending it again`);
    }
    const expectStatus = kind === 'deposit' ? 'created' : order.status;
    const retry = retryOf !== undefined;
    return again(
      await actions.execute({ orderId: order.id, kind, call, account: relayer, expectStatus, retry }),
    );
  }

  /** Carries out one decision. Chain actions only send; the next decision follows what they did on chain. */
  async function act(order: Order, terms: OrderTerms, decision: SettlementDecision): Promise<StepResult> {
    const hash = order.blockchainOrderId;
    switch (decision.kind) {
      case 'deposit':
        return send(
          order,
          'deposit',
          (await orderDepositCall(database, chain, order, terms)).call,
          decision.retryOf,
        );
      case 'attest-and-settle':
        return send(order, 'settle', await settleCall(order), decision.retryOf);
      case 'refund':
        return send(order, 'refund', chain.refundCall(order.inputChain, hash), decision.retryOf);
      case 'follow': {
        const { kind: _, to, ...hashes } = decision;
        return (await move(order, { status: to, ...hashes })) ? { again: 'now' } : { again: 'soon' };
      }
      case 'fail':
        await move(order, { status: 'failed', failureReason: decision.reason });
        return { again: 'later' };
      case 'wait':
        log.debug({ orderId: order.id, status: order.status, reason: decision.reason }, 'order waits');
        return { again: 'soon' };
      case 'done':
        return { again: 'later' };
    }
  }

  return { act };
}
