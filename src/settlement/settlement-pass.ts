import type { FastifyBaseLogger } from 'fastify';
import { NonceConflictError } from '../chains/transactions/tx-sender.ts';
import { isRetryable } from '../domain/ferry-error.ts';
import type { Order } from '../domain/records.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import { claimOrders, releaseOrder } from '../store/ledgers/settlement-store.ts';
import { findOrder } from '../store/tables/orders-store.ts';
import { RetryLaterError } from './decision-executor.ts';
import type { FillIndexer } from './fill-indexer.ts';
import type { OrderStepper } from './order-stepper.ts';
import type { ProveBatcher } from './prove-batcher.ts';
import type { TransactionDriver } from './transaction-driver.ts';

/** The longest wait between two tries of a settle or refund that keeps reverting. */
const RETRY_MAX_MS = 60_000;

/** An order whose action lost its nonce is looked at this rarely: only someone else's move on chain changes it. */
const NONCE_CONFLICT_RECHECK_MS = 60_000;

/** How many orders one pass leases. */
const CLAIM_LIMIT = 20;

/** How many steps one order may take in one pass while each succeeds at once. */
const STEPS_PER_PASS = 8;

/** One pass of the settlement worker over the orders that need work. */
export interface SettlementPass {
  /** Returns how many orders it leased. */
  run(): Promise<number>;
}

export function createSettlementPass(deps: {
  readonly database: FerryDatabase;
  readonly log: FastifyBaseLogger;
  /** This worker's lease owner id. */
  readonly owner: string;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly stepper: OrderStepper;
  /** The fallback proves the pass set aside, sent at its end, one per route. */
  readonly batcher?: ProveBatcher;
  readonly driver: TransactionDriver;
  readonly fillIndexer?: FillIndexer;
  readonly metrics?: FerryMetrics;
}): SettlementPass {
  const { database, log, owner, stepper } = deps;

  /** Walks one leased order and says when it should be looked at again, and whether this try failed. */
  async function work(order: Order, attempts: number): Promise<{ next: number; failed: boolean }> {
    // Waiting on a chain: eligible again at once, so the next pass (a new block, a new order, the poll) takes it.
    const now = Date.now();
    try {
      let current: Order | null = order;
      // Keep walking one order while each step succeeds at once, so a swap settles in one pass.
      for (let i = 0; i < STEPS_PER_PASS && current; i++) {
        const result = await stepper.step(current);
        if (result.again !== 'now') break;
        current = await findOrder(database.db, order.id);
      }
      return { next: now, failed: false };
    } catch (error) {
      if (error instanceof RetryLaterError) {
        return { next: Date.now() + Math.min(RETRY_MAX_MS, backoff(attempts)), failed: true };
      }
      if (error instanceof NonceConflictError) {
        // Retrying cannot mine it; later passes follow the escrow on chain without sending (recordedAction).
        log.error(
          { orderId: order.id, chain: error.chain, nonce: error.nonce, actionId: error.actionId },
          "settlement action abandoned: its nonce was used outside Ferry's records; following the escrow on chain",
        );
        return { next: Date.now() + NONCE_CONFLICT_RECHECK_MS, failed: false };
      }
      // Backed off either way; a failure that will not go otherwise unchanged (not retryable) is logged at error.
      const fields = { err: error, orderId: order.id, status: order.status };
      if (isRetryable(error)) log.warn(fields, 'settlement step failed; will retry');
      else log.error(fields, 'settlement step failed (not retryable); will look again after a backoff');
      return { next: afterFailure(attempts), failed: true };
    }
  }

  /** Exponential backoff per order after a failed step (an RPC outage must not turn into a hot retry loop). */
  function afterFailure(attempts: number): number {
    return Date.now() + Math.min(30_000, backoff(attempts));
  }

  function backoff(attempts: number): number {
    return deps.pollMs * 2 ** Math.min(attempts + 1, 10);
  }

  return {
    async run() {
      deps.metrics?.settlementPasses.inc();
      await deps.fillIndexer?.catchUp();
      await deps.driver.driveAll();
      const claimed = await claimOrders(database.db, owner, Date.now(), deps.leaseMs, CLAIM_LIMIT);
      const done: { id: string; attempts: number; next: number; failed: boolean }[] = [];
      for (const { order, attempts } of claimed)
        done.push({ id: order.id, attempts, ...(await work(order, attempts)) });
      // Sent while the orders are still leased: another worker's pass does not set the same ones aside meanwhile.
      const unsent = (await deps.batcher?.flush()) ?? new Set<string>();
      for (const { id, attempts, next, failed } of done) {
        // A deferred prove that could not be sent is a failed step like any other: it backs off and counts.
        if (unsent.has(id)) await releaseOrder(database.db, id, owner, afterFailure(attempts), true);
        else await releaseOrder(database.db, id, owner, next, failed);
      }
      return claimed.length;
    },
  };
}
