import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import type { SettlementChain } from '../chains/settlement/settlement-chain.ts';
import type { Clock } from '../domain/clock.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import { createPeriodicJob } from '../process/periodic-job.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import type { ChainActionExecutor, WorkerTransactions } from './chain-action-executor.ts';
import { createDecisionExecutor } from './decision-executor.ts';
import type { FillIndexer } from './fill-indexer.ts';
import { createOrderObserver } from './order-observer.ts';
import { createOrderStepper } from './order-stepper.ts';
import { createProveBatcher } from './prove-batcher.ts';
import { createSettlementPass } from './settlement-pass.ts';
import { createTransactionDriver } from './transaction-driver.ts';

export interface WorkerDeps {
  readonly database: FerryDatabase;
  readonly registry: ChainRegistry;
  readonly chain: SettlementChain;
  readonly actions: ChainActionExecutor;
  /** Drives every recorded transaction of the relayer to its end, apart from order status (transaction-driver.ts). */
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
 * Moves orders created → deposited → filled → completed, or to failed / refunded. Each pass (settlement-pass.ts)
 * first drives the relayer's transactions (transaction-driver.ts); then each step (order-stepper.ts) observes both
 * chains and the records (order-observer.ts), asks decideSettlement (src/domain/settlement-decision.ts) what to
 * do, and does it (decision-executor.ts).
 */
export function createSettlementWorker(deps: WorkerDeps): SettlementWorker {
  const { database, log } = deps;
  const owner = `worker_${process.pid}_${randomBytes(4).toString('hex')}`;
  const batcher = createProveBatcher(deps);
  const stepper = createOrderStepper({
    database,
    observer: createOrderObserver(deps),
    executor: createDecisionExecutor({ ...deps, batcher }),
    log,
    clock: deps.clock,
    metrics: deps.metrics,
  });
  const pass = createSettlementPass({
    ...deps,
    owner,
    // Correctness never rests on the lease (chain actions are unique per order and kind, transitions are
    // compare-and-set); it only keeps two workers from doing the same work at once.
    leaseMs: deps.leaseMs ?? 30_000,
    stepper,
    batcher,
    driver: createTransactionDriver(deps),
  });

  const job = createPeriodicJob({
    name: 'settlement pass',
    intervalMs: deps.pollMs,
    firstRunMs: 0,
    run: pass.run,
    log,
    // In `ferry worker` without METRICS_PORT, the pass schedule is all that keeps the process alive.
    keepAlive: true,
    // Every block of every chain wakes the worker, and a pass reads both chains for each open order: on a chain with
    // sub-second blocks, back-to-back passes would turn into a constant stream of RPC calls.
    minGapMs: Math.min(WAKE_MIN_GAP_MS, deps.pollMs),
  });

  return { owner, runOnce: job.runOnce, start: job.start, wake: job.wake, stop: job.stop };
}
