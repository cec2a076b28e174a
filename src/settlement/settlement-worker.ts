import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import { fillAttestationTypedData } from '../chains/ferry-order.ts';
import { RevertError, type SettlementChain } from '../chains/settlement-chain.ts';
import type { Clock } from '../domain/clock.ts';
import { publicOrderView } from '../domain/public-views.ts';
import type { Order } from '../domain/records.ts';
import type { FerryDatabase } from '../store/database.ts';
import { findOrder } from '../store/orders-store.ts';
import { findQuote } from '../store/quotes-store.ts';
import {
  claimOrders,
  findChainAction,
  type OrderChange,
  releaseOrder,
  transitionOrder,
} from '../store/settlement-store.ts';
import type { ChainActionExecutor } from './chain-action-executor.ts';
import { escrowOrderFrom } from './order-terms.ts';

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
  readonly pollMs: number;
  readonly leaseMs?: number;
}

type StepResult = { readonly again: 'now' | 'soon' | 'later' };

const ACTOR = 'settlement-worker';

/**
 * Moves orders created → deposited → filled → completed, or to failed / refunded. Each step first
 * compares what was written down with the chain, and only then acts; every status change is one
 * database transaction together with its event.
 */
export function createSettlementWorker(deps: WorkerDeps) {
  const { database, chain, actions, clock, log, relayer, attester } = deps;
  const owner = `worker_${process.pid}_${randomBytes(4).toString('hex')}`;
  // Correctness never rests on the lease (chain actions are unique per order and kind, transitions are
  // compare-and-set); it only keeps two workers from doing the same work at once.
  const leaseMs = deps.leaseMs ?? 30_000;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;
  let stopped = false;

  async function move(order: Order, change: OrderChange): Promise<boolean> {
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

  async function deposit(order: Order, hash: Hex): Promise<StepResult> {
    const quote = await findQuote(database.db, order.quoteId);
    if (!quote) throw new Error(`order ${order.id} has no quote`);
    const terms = escrowOrderFrom(quote.typedData);
    const recorded = await actions.recorded(order.id, 'deposit');
    if (!recorded) {
      // Nothing was sent yet: this is the last moment to refuse cheaply, without spending gas.
      const onChain = await chain.escrowStatus(order.inputChain, hash);
      if (onChain !== 'none') {
        // Deposited by someone else (anyone may relay the signed order): adopt it.
        return (await move(order, { status: 'deposited' })) ? { again: 'now' } : { again: 'soon' };
      }
      if ((await chain.chainTime(order.inputChain)) > Number(terms.openDeadline)) {
        await move(order, { status: 'failed', failureReason: 'the deposit deadline (openDeadline) passed' });
        return { again: 'later' };
      }
      const { balance, allowance } = await chain.balanceAndAllowance(
        order.inputChain,
        order.inputToken,
        order.offerer,
      );
      if (balance < order.inputAmount) {
        await move(order, {
          status: 'failed',
          failureReason: `INSUFFICIENT_BALANCE: the offerer holds ${balance} of the input token, below ${order.inputAmount}`,
        });
        return { again: 'later' };
      }
      if (allowance < order.inputAmount) {
        await move(order, {
          status: 'failed',
          failureReason: `INSUFFICIENT_ALLOWANCE: the offerer approved ${allowance} of the input token to the escrow, below ${order.inputAmount}`,
        });
        return { again: 'later' };
      }
      const call = chain.depositCall(order.inputChain, terms, order.signature);
      try {
        await chain.simulate(call, relayer.address, 'escrow');
      } catch (error) {
        if (!(error instanceof RevertError)) throw error;
        await move(order, { status: 'failed', failureReason: `deposit would revert: ${error.reason}` });
        return { again: 'later' };
      }
    }
    const call = chain.depositCall(order.inputChain, terms, order.signature);
    const outcome = await actions.execute(order.id, 'deposit', call, relayer, 'created');
    if (outcome.status === 'stale' || outcome.status === 'pending') return { again: 'soon' };
    if (outcome.status === 'reverted') {
      // A revert because the order is already in the escrow (deposited by another relayer) is not a failure.
      if ((await chain.escrowStatus(order.inputChain, hash)) !== 'none') {
        return (await move(order, { status: 'deposited' })) ? { again: 'now' } : { again: 'soon' };
      }
      await move(order, {
        status: 'failed',
        failureReason: `deposit transaction ${outcome.txHash} reverted`,
      });
      return { again: 'later' };
    }
    await move(order, { status: 'deposited', srcChainTxHash: outcome.txHash });
    return { again: 'now' };
  }

  /** The escrow was released by someone else (the offerer may refund after the deadline): follow the chain. */
  async function adoptRelease(order: Order, hash: Hex): Promise<StepResult | null> {
    const onChain = await chain.escrowStatus(order.inputChain, hash);
    if (onChain === 'settled') {
      await move(order, { status: 'completed', completedAt: clock.now() });
      return { again: 'later' };
    }
    if (onChain === 'refunded') {
      await move(order, {
        status: 'refunded',
        failureReason: 'the escrow was refunded to the offerer on chain',
      });
      return { again: 'later' };
    }
    return null;
  }

  /** A valid fill by the designated filler, final on the output chain, or null. */
  async function validFill(order: Order, hash: Hex, terms: ReturnType<typeof escrowOrderFrom>) {
    const fill = await chain.findFill(order.outputChain, hash, terms.filler);
    if (!fill) return null;
    const problems = [
      fill.recipient.toLowerCase() !== order.recipient.toLowerCase() && 'recipient',
      fill.token.toLowerCase() !== order.outputToken.toLowerCase() && 'token',
      fill.amount !== order.outputAmount && 'amount',
      fill.blockTimestamp > Number(terms.fillDeadline) && 'deadline',
    ].filter(Boolean);
    if (problems.length === 0) return fill;
    // A fill with the wrong terms is never attested; the order will refund after its deadline.
    log.warn(
      { orderId: order.id, problems, fillTx: fill.txHash },
      'fill does not match the order; not attesting',
    );
    return null;
  }

  async function awaitFill(order: Order, hash: Hex): Promise<StepResult> {
    const quote = await findQuote(database.db, order.quoteId);
    if (!quote) throw new Error(`order ${order.id} has no quote`);
    const terms = escrowOrderFrom(quote.typedData);
    const recordedRefund = await actions.recorded(order.id, 'refund');
    if (!recordedRefund) {
      const fill = await validFill(order, hash, terms);
      if (fill) {
        await move(order, { status: 'filled', dstChainTxHash: fill.txHash });
        return { again: 'now' };
      }
      // Refund only once BOTH chains are past the deadline (the fill contract enforces it in output-chain
      // time), and look for the fill once more: a fill that landed meanwhile must be settled, not refunded.
      const [inputTime, outputTime] = await Promise.all([
        chain.chainTime(order.inputChain),
        chain.chainTime(order.outputChain),
      ]);
      if (Math.min(inputTime, outputTime) <= Number(terms.fillDeadline)) return { again: 'soon' };
      if (await validFill(order, hash, terms)) return { again: 'now' };
      const adopted = await adoptRelease(order, hash);
      if (adopted) return adopted;
    }
    const outcome = await actions.execute(
      order.id,
      'refund',
      chain.refundCall(order.inputChain, hash),
      relayer,
      'deposited',
    );
    if (outcome.status === 'stale' || outcome.status === 'pending') return { again: 'soon' };
    if (outcome.status === 'reverted') {
      const adopted = await adoptRelease(order, hash);
      if (adopted) return adopted;
      throw new Error(`refund transaction ${outcome.txHash} reverted`);
    }
    await move(order, {
      status: 'refunded',
      settlementTxHash: outcome.txHash,
      failureReason: 'not filled before the fill deadline; the input was returned to the offerer',
    });
    return { again: 'later' };
  }

  async function settle(order: Order, hash: Hex): Promise<StepResult> {
    const inputChain = deps.registry.chain(order.inputChain);
    if (!inputChain?.contracts.messenger) throw new Error(`chain ${order.inputChain} has no messenger`);
    if (!(await actions.recorded(order.id, 'settle'))) {
      const adopted = await adoptRelease(order, hash);
      if (adopted) return adopted;
    }
    const attestation = await attester.signTypedData(
      fillAttestationTypedData({
        messenger: inputChain.contracts.messenger,
        escrow: inputChain.contracts.escrow,
        inputChainId: inputChain.chainId,
        orderHash: hash,
      }),
    );
    const outcome = await actions.execute(
      order.id,
      'settle',
      chain.relayFillCall(order.inputChain, hash, attestation),
      relayer,
      'filled',
    );
    if (outcome.status === 'stale' || outcome.status === 'pending') return { again: 'soon' };
    if (outcome.status === 'reverted') {
      const adopted = await adoptRelease(order, hash);
      if (adopted) return adopted;
      throw new Error(`settle transaction ${outcome.txHash} reverted`);
    }
    await move(order, { status: 'completed', settlementTxHash: outcome.txHash, completedAt: clock.now() });
    return { again: 'later' };
  }

  async function step(order: Order): Promise<StepResult> {
    const hash = order.blockchainOrderId;
    switch (order.status) {
      case 'created':
        return deposit(order, hash);
      case 'deposited':
        return awaitFill(order, hash);
      case 'filled':
        return settle(order, hash);
      default:
        return { again: 'later' };
    }
  }

  async function runOnce(): Promise<number> {
    const now = Date.now();
    const claimed = await claimOrders(database.db, owner, now, leaseMs, 20);
    for (const { order, attempts } of claimed) {
      let next = Date.now() + deps.pollMs;
      let failed = false;
      try {
        let current: Order | null = order;
        // Keep walking one order while each step succeeds at once, so a swap settles in one pass.
        for (let i = 0; i < 4 && current; i++) {
          const result = await step(current);
          if (result.again !== 'now') break;
          current = await findOrder(database.db, order.id);
        }
      } catch (error) {
        failed = true;
        // Exponential backoff per order (an RPC outage must not turn into a hot retry loop).
        next = Date.now() + Math.min(30_000, deps.pollMs * 2 ** Math.min(attempts + 1, 10));
        log.warn(
          { err: error, orderId: order.id, status: order.status },
          'settlement step failed; will retry',
        );
      }
      await releaseOrder(database.db, order.id, owner, next, failed);
    }
    return claimed.length;
  }

  return {
    owner,
    /** One pass over the orders that need work; tests and the loop both use it. */
    runOnce(): Promise<number> {
      running ??= runOnce().finally(() => {
        running = null;
      });
      return running;
    },
    start() {
      stopped = false;
      const loop = async () => {
        if (stopped) return;
        try {
          await this.runOnce();
        } catch (error) {
          log.warn({ err: error }, 'settlement pass failed; will retry');
        }
        if (!stopped) timer = setTimeout(loop, deps.pollMs);
      };
      timer = setTimeout(loop, 0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

export type SettlementWorker = ReturnType<typeof createSettlementWorker>;
