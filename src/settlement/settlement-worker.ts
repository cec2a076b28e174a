import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import { fillAttestationTypedData } from '../chains/fill-attestation.ts';
import { RevertError, type SettledBlock, type SettlementChain } from '../chains/settlement-chain.ts';
import { NonceConflictError } from '../chains/transaction-client.ts';
import type { Clock } from '../domain/clock.ts';
import { canTransitionOrder } from '../domain/lifecycle.ts';
import { type OrderTerms, orderTermsFrom } from '../domain/order-typed-data.ts';
import { publicOrderView } from '../domain/public-views.ts';
import type { Order } from '../domain/records.ts';
import {
  decideSettlement,
  fillProblems,
  type RecordedAction,
  type SettlementDecision,
  type SettlementObservation,
} from '../domain/settlement-decision.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import { createPeriodicJob } from '../process/periodic-job.ts';
import type { FerryDatabase } from '../store/database.ts';
import { findOrder } from '../store/orders-store.ts';
import { findQuote } from '../store/quotes-store.ts';
import {
  type ChainAction,
  claimOrders,
  findChainAction,
  type OrderChange,
  releaseOrder,
  transitionOrder,
} from '../store/settlement-store.ts';
import type { ActionOutcome, ChainActionExecutor } from './chain-action-executor.ts';
import type { FillIndexer } from './fill-indexer.ts';

export interface WorkerDeps {
  readonly database: FerryDatabase;
  readonly registry: ChainRegistry;
  readonly chain: SettlementChain;
  readonly actions: ChainActionExecutor;
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

/**
 * `now`: walk the order on in this pass. `soon`: it waits on a chain (a receipt, a fill, depth, a deadline, an
 * allowance), so the next pass looks at it, whatever woke that pass. `later`: it is done.
 */
type StepResult = { readonly again: 'now' | 'soon' | 'later' };

/** The least time between two passes started by wake-ups (blocks, new orders). */
const WAKE_MIN_GAP_MS = 50;

/** An order whose action lost its nonce is looked at this rarely: only someone else's move on chain changes it. */
const NONCE_CONFLICT_RECHECK_MS = 60_000;

/** A sent action that reached its receipt is looked at again at once; one still in flight, soon. */
function again(outcome: ActionOutcome): StepResult {
  return outcome.status === 'success' || outcome.status === 'reverted' ? { again: 'now' } : { again: 'soon' };
}

function recordedAction(action: ChainAction | null): RecordedAction | null {
  if (!action) return null;
  // An action whose nonce went to another transaction can never be mined: like a revert, it is spent without
  // effect, so the decision follows the escrow (a deposit, settle or refund by anyone) and sends nothing again.
  if (action.status === 'nonce-conflict')
    return { status: 'reverted', txHash: action.tx_hash as `0x${string}` };
  const status =
    action.status === 'confirmed' || action.status === 'reverted' ? action.status : ('recorded' as const);
  return { status, txHash: action.tx_hash as `0x${string}` };
}

const ACTOR = 'settlement-worker';

/**
 * Moves orders created → deposited → filled → completed, or to failed / refunded. Each step observes both
 * chains and the records, asks decideSettlement (src/domain/settlement-decision.ts) what to do, and does
 * it; every status change goes through `move`, one database transaction together with its event.
 */
export function createSettlementWorker(deps: WorkerDeps) {
  const { database, chain, actions, clock, log, relayer, attester } = deps;
  const owner = `worker_${process.pid}_${randomBytes(4).toString('hex')}`;
  // Correctness never rests on the lease (chain actions are unique per order and kind, transitions are
  // compare-and-set); it only keeps two workers from doing the same work at once.
  const leaseMs = deps.leaseMs ?? 30_000;

  async function move(order: Order, change: OrderChange): Promise<boolean> {
    if (!canTransitionOrder(order.status, change.status)) {
      throw new Error(`order ${order.id}: no transition ${order.status} → ${change.status}`);
    }
    const now = clock.now();
    const moved = await database.transaction(async (trx, uow) => {
      // A fill seen after a refund was written down must not be settled: the refund wins, on chain too.
      if (change.status === 'filled' && (await findChainAction(trx, order.id, 'refund'))) return null;
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

  /**
   * The output chain's time as far as the fill index has read it. A refund rests on "no fill by fillDeadline", and
   * the index is where fills are seen: while it lags (an RPC outage, a long scan), time past its last block proves
   * nothing, so it must not count.
   */
  async function indexedTime(chainName: string, settled: SettledBlock): Promise<bigint> {
    if (!deps.fillIndexer) return settled.timestamp;
    const through = await deps.fillIndexer.indexedThrough(chainName);
    if (through === null) return 0n;
    if (through >= settled.number) return settled.timestamp;
    return chain.blockTimestamp(chainName, through);
  }

  /** Reads what the decision needs for one order: both chains at their confirmations depth, and the records. */
  async function observe(order: Order, terms: OrderTerms): Promise<SettlementObservation> {
    const hash = order.blockchainOrderId;
    const open = order.status === 'deposited' || order.status === 'filled';
    // A `created` order needs nothing from the output chain yet.
    const [input, output, settleGrace, deposit, settle, refund] = await Promise.all([
      chain.settledBlock(order.inputChain),
      open ? chain.settledBlock(order.outputChain) : { head: 0n, number: 0n, timestamp: 0n },
      chain.settleGrace(order.inputChain),
      actions.recorded(order.id, 'deposit'),
      actions.recorded(order.id, 'settle'),
      actions.recorded(order.id, 'refund'),
    ]);
    const [escrow, fill] = await Promise.all([
      chain.escrowStatus(order.inputChain, hash, input.number),
      open ? chain.findFill(order.outputChain, hash, terms.filler) : null,
    ]);
    const base = {
      status: order.status,
      terms,
      escrow,
      inputTime: input.timestamp,
      outputTime: open ? await indexedTime(order.outputChain, output) : 0n,
      settleGrace,
      outputConfirmations: deps.registry.chain(order.outputChain)?.confirmations ?? 1,
      actions: {
        deposit: recordedAction(deposit),
        settle: recordedAction(settle),
        refund: recordedAction(refund),
      },
      fill: fill && {
        ...fill,
        blockTimestamp: BigInt(fill.blockTimestamp),
        depth: Number(output.head - fill.blockNumber + 1n),
      },
      depositCheck: null,
    } satisfies SettlementObservation;
    if (order.status !== 'created' || escrow !== 'none' || deposit) return base;
    return { ...base, depositCheck: await checkDeposit(order, terms, input.timestamp) };
  }

  /** The offerer's funds, and, when they suffice, whether the deposit would revert for another reason. */
  async function checkDeposit(order: Order, terms: OrderTerms, inputTime: bigint) {
    const { balance, allowance } = await chain.balanceAndAllowance(
      order.inputChain,
      order.inputToken,
      order.offerer,
    );
    const check = { balance, allowance, inputAmount: order.inputAmount, revert: null as string | null };
    if (balance < order.inputAmount || allowance < order.inputAmount || inputTime > terms.openDeadline) {
      return check;
    }
    try {
      await chain.simulate(
        chain.depositCall(order.inputChain, terms, order.signature),
        relayer.address,
        'escrow',
      );
    } catch (error) {
      if (!(error instanceof RevertError)) throw error;
      check.revert = error.reason;
    }
    return check;
  }

  async function attestAndSettle(order: Order) {
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
    const call = chain.relayFillCall(order.inputChain, order.blockchainOrderId, attestation);
    return actions.execute(order.id, 'settle', call, relayer, order.status);
  }

  /** Carries out one decision. Chain actions only send; the next decision follows what they did on chain. */
  async function act(order: Order, terms: OrderTerms, decision: SettlementDecision): Promise<StepResult> {
    const hash = order.blockchainOrderId;
    switch (decision.kind) {
      case 'deposit': {
        const call = chain.depositCall(order.inputChain, terms, order.signature);
        return again(await actions.execute(order.id, 'deposit', call, relayer, 'created'));
      }
      case 'attest-and-settle':
        return again(await attestAndSettle(order));
      case 'refund': {
        const call = chain.refundCall(order.inputChain, hash);
        return again(await actions.execute(order.id, 'refund', call, relayer, order.status));
      }
      case 'follow': {
        const { kind: _, to, ...hashes } = decision;
        const terminal = to === 'completed' ? { completedAt: clock.now() } : {};
        return (await move(order, { status: to, ...hashes, ...terminal }))
          ? { again: 'now' }
          : { again: 'soon' };
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

  async function step(order: Order): Promise<StepResult> {
    const quote = await findQuote(database.db, order.quoteId);
    if (!quote) throw new Error(`order ${order.id} has no quote`);
    const terms = orderTermsFrom(quote.typedData);
    const observation = await observe(order, terms);
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
      return await act(order, terms, decision);
    } finally {
      stopTimer?.();
    }
  }

  async function runOnce(): Promise<number> {
    deps.metrics?.settlementPasses.inc();
    await deps.fillIndexer?.catchUp();
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
        if (error instanceof NonceConflictError) {
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

export type SettlementWorker = ReturnType<typeof createSettlementWorker>;
