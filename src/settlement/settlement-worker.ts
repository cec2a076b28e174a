import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import type { SettlementChain } from '../chains/settlement-chain.ts';
import { NonceConflictError } from '../chains/tx-sender.ts';
import type { Clock } from '../domain/clock.ts';
import { isTerminalOrderStatus } from '../domain/lifecycle.ts';
import { orderTermsFrom } from '../domain/order-typed-data.ts';
import type { Order } from '../domain/records.ts';
import { decideSettlement, fillProblems } from '../domain/settlement-decision.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import { createPeriodicJob } from '../process/periodic-job.ts';
import type { FerryDatabase } from '../store/database.ts';
import { findOrder } from '../store/orders-store.ts';
import { findQuote } from '../store/quotes-store.ts';
import { claimOrders, orderStatuses, releaseOrder } from '../store/settlement-store.ts';
import type { ChainActionExecutor, WorkerTransactions } from './chain-action-executor.ts';
import { createDecisionExecutor, RetryLaterError, type StepResult } from './decision-executor.ts';
import type { FillIndexer } from './fill-indexer.ts';
import { createOrderObserver } from './order-observer.ts';

export interface WorkerDeps {
  readonly database: FerryDatabase;
  readonly registry: ChainRegistry;
  readonly chain: SettlementChain;
  readonly actions: ChainActionExecutor;
  /** Drives every recorded transaction of the relayer to its end, apart from order status (driveTransactions). */
  readonly transactions: WorkerTransactions;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  /** Sends deposit, settle (relay) and refund transactions. */
  readonly relayer: PrivateKeyAccount;
  /** Signs fill attestations; the messenger contract trusts its address. */
  readonly attester: PrivateKeyAccount;
  /** The fallback schedule: a pass this long after the previous one ended, when nothing woke the worker sooner. */
  readonly pollMs: number;
  readonly leaseMs?: number;
  /** Reads new fills into the fill index before each pass, so `findFill` sees them (fill-indexer.ts). */
  readonly fillIndexer?: FillIndexer;
  /** Times each decision carried out (ferry_settlement_step_duration_seconds). */
  readonly metrics?: FerryMetrics;
}

/** The least time between two passes started by wake-ups (blocks, new orders). */
const WAKE_MIN_GAP_MS = 50;

/** The longest wait between two tries of a settle or refund that keeps reverting. */
const RETRY_MAX_MS = 60_000;

/** An order whose action lost its nonce is looked at this rarely: only someone else's move on chain changes it. */
const NONCE_CONFLICT_RECHECK_MS = 60_000;

export interface SettlementWorker {
  /** Identifies this worker's leases. */
  readonly owner: string;
  /** One pass over the orders that need work (or the pass under way); tests and the loop both use it. */
  runOnce(): Promise<number>;
  /** Passes every `pollMs` from now on, the first at once. */
  start(): void;
  /**
   * Something an order may wait on happened (a block on a registry chain, a new order): a pass now, or right after
   * the one under way. Ignored while stopped.
   */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Moves orders created → deposited → filled → completed, or to failed / refunded. Each pass first drives the
 * relayer's transactions; then each step observes both chains and the records (order-observer.ts), asks
 * decideSettlement (src/domain/settlement-decision.ts) what to do, and does it (decision-executor.ts).
 */
export function createSettlementWorker(deps: WorkerDeps): SettlementWorker {
  const { database, log, relayer } = deps;
  const observer = createOrderObserver(deps);
  const executor = createDecisionExecutor(deps);
  const owner = `worker_${process.pid}_${randomBytes(4).toString('hex')}`;
  // Correctness never rests on the lease (chain actions are unique per order and kind, transitions are
  // compare-and-set); it only keeps two workers from doing the same work at once.
  const leaseMs = deps.leaseMs ?? 30_000;

  /**
   * Every transaction the relayer has written down is driven to its end here, whatever its order did meanwhile:
   * broadcast again, replaced with higher fees, or, once its order has ended, cancelled (its nonce spent on a
   * zero-value self-transfer), so a terminal order never strands a nonce; then a nonce gap is repaired.
   */
  async function driveTransactions(): Promise<void> {
    for (const name of deps.registry.chains.map((c) => c.name)) {
      await deps.transactions.drive({
        chain: name,
        account: relayer,
        async abandoned(open) {
          const mine = open.filter((a) => a.kind !== 'nonce-gap');
          const statuses = await orderStatuses(database.db, [...new Set(mine.map((a) => a.subject))]);
          return new Set(
            mine
              .filter((a) => isTerminalOrderStatus(statuses.get(a.subject) ?? 'completed'))
              .map((a) => a.id),
          );
        },
        guard: async () => true,
        onError(action, error) {
          if (error instanceof NonceConflictError) return;
          log.warn(
            { err: error, chain: name, actionId: action?.id, kind: action?.kind, orderId: action?.subject },
            'driving a recorded transaction failed; will retry',
          );
        },
      });
    }
  }

  async function step(order: Order): Promise<StepResult> {
    const quote = await findQuote(database.db, order.quoteId);
    if (!quote) throw new Error(`order ${order.id} has no quote`);
    const terms = orderTermsFrom(quote.typedData);
    const observation = await observer.observe(order, terms);
    const problems = observation.fill && fillProblems(observation);
    if (problems && !problems.every((p) => p === 'not at confirmations depth')) {
      // A fill with the wrong terms is never attested; the order will refund after its deadline.
      log.warn(
        { orderId: order.id, problems, fillTx: observation.fill?.txHash },
        'fill does not match the order',
      );
    }
    const decision = decideSettlement(observation);
    const stopTimer = deps.metrics?.settlementStep.startTimer({ decision: decision.kind });
    try {
      return await executor.act(order, terms, decision);
    } finally {
      stopTimer?.();
    }
  }

  async function runOnce(): Promise<number> {
    deps.metrics?.settlementPasses.inc();
    await deps.fillIndexer?.catchUp();
    await driveTransactions();
    const now = Date.now();
    const claimed = await claimOrders(database.db, owner, now, leaseMs, 20);
    for (const { order, attempts } of claimed) {
      // Waiting on a chain: eligible again at once, so the next pass (a new block, a new order, the poll) takes it.
      let next = Date.now();
      let failed = false;
      try {
        let current: Order | null = order;
        // Keep walking one order while each step succeeds at once, so a swap settles in one pass.
        for (let i = 0; i < 8 && current; i++) {
          const result = await step(current);
          if (result.again !== 'now') break;
          current = await findOrder(database.db, order.id);
        }
      } catch (error) {
        if (error instanceof RetryLaterError) {
          failed = true;
          next = Date.now() + Math.min(RETRY_MAX_MS, deps.pollMs * 2 ** Math.min(attempts + 1, 10));
        } else if (error instanceof NonceConflictError) {
          // Retrying cannot mine it; later passes follow the escrow on chain without sending (recordedAction).
          next = Date.now() + NONCE_CONFLICT_RECHECK_MS;
          log.error(
            { orderId: order.id, chain: error.chain, nonce: error.nonce, actionId: error.actionId },
            "settlement action abandoned: its nonce was used outside Ferry's records; following the escrow on chain",
          );
        } else {
          failed = true;
          // Exponential backoff per order (an RPC outage must not turn into a hot retry loop).
          next = Date.now() + Math.min(30_000, deps.pollMs * 2 ** Math.min(attempts + 1, 10));
          log.warn(
            { err: error, orderId: order.id, status: order.status },
            'settlement step failed; will retry',
          );
        }
      }
      await releaseOrder(database.db, order.id, owner, next, failed);
    }
    return claimed.length;
  }

  const job = createPeriodicJob({
    name: 'settlement pass',
    intervalMs: deps.pollMs,
    firstRunMs: 0,
    run: runOnce,
    log,
    // In `ferry worker` without METRICS_PORT, the pass schedule is all that keeps the process alive.
    keepAlive: true,
    // Every block of every chain wakes the worker, and a pass reads both chains for each open order: on a chain with
    // sub-second blocks, back-to-back passes would turn into a constant stream of RPC calls.
    minGapMs: Math.min(WAKE_MIN_GAP_MS, deps.pollMs),
  });

  return {
    owner,
    /** One pass over the orders that need work (or the pass under way); tests and the loop both use it. */
    runOnce: job.runOnce,
    /** Passes every `pollMs` from now on, the first at once. */
    start: job.start,
    /**
     * Something an order may wait on happened (a block on a registry chain, a new order): a pass now, or right
     * after the one under way. Ignored while stopped.
     */
    wake: job.wake,
    stop: job.stop,
  };
}
