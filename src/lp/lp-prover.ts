import { randomUUID } from 'node:crypto';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import {
  type ChainClients,
  escrowSettleGrace,
  escrowStatus,
  fillTimeOf,
  minedBlockOf,
  proveData,
  provenSince,
  quoteProve,
} from '../chains/settlement/lp-chain-clients.ts';
import { MAX_PROOFS_PER_MESSAGE, proveOptions, tokenRunsOf } from '../chains/settlement/prove-options.ts';
import type { LpJournal } from '../store/ledgers/lp-journal.ts';
import type { JournalFill } from '../store/ledgers/lp-proof-journal.ts';
import type { ChainInfo } from './ferry-api.ts';
import type { BotLog } from './lp-bot-log.ts';
import { LpBotError } from './lp-error.ts';
import type { BotTransactions } from './lp-filler.ts';
import type { PassReport } from './lp-pass-report.ts';

export interface ProverDeps {
  readonly account: PrivateKeyAccount;
  readonly journal: LpJournal;
  readonly transactions: BotTransactions;
  readonly log: BotLog;
  /** The most fills one proof message carries (lp-command's --prove-batch). */
  readonly proveBatch: number;
  /** How long after the oldest unproven fill of a route its batch goes out anyway (ms). */
  readonly proveAfterMs: number;
  chain(name: string): Promise<ChainInfo | null>;
  clientsFor(info: ChainInfo): ChainClients;
}

const routeOf = (fill: JournalFill) => `${fill.outputChain}|${fill.inputChain}|${fill.escrow.toLowerCase()}`;
const FAILED_FILL = new Set(['reverted', 'cancelled', 'nonce-conflict']);

/**
 * The bot's proofs on LayerZero routes: its fills (written down with each fill, lp-proof-journal.ts) go out in one
 * FerryApp.prove(orders) per output chain, input chain and escrow, once `proveBatch` of them wait or `proveAfterMs`
 * after the oldest. Each batch is written down with its transaction before it is broadcast; every pass first
 * reconciles the open batches with the ledger (a mined batch is never sent again, a failed one frees its fills) and
 * drops, just before sending, the fills someone else proved (Ferry's worker) or the input chain already settled.
 */
/** Open batches whose transaction ended: proven when mined at depth, otherwise their fills wait for the next. */
async function reconcile(deps: ProverDeps, sentPending: Set<string>, report: PassReport): Promise<void> {
  const { journal, log } = deps;
  const proofs = journal.proofs;
  for (const batch of await proofs.openBatches()) {
    const action = await journal.latestAction(batch.batchId, 'prove');
    if (action?.status === 'recorded') continue;
    const outcome = action?.status === 'confirmed' ? 'proven' : 'failed';
    await proofs.closeBatch(batch.batchId, outcome);
    const extra = { batchId: batch.batchId, fills: batch.orderHashes.length, txHash: action?.txHash };
    // Reported by the pass that sees it mined when the pass that sent it did not wait for its block.
    if (outcome === 'proven' && sentPending.delete(batch.batchId) && action)
      report.proved.push({ batchId: batch.batchId, orderHashes: batch.orderHashes, txHash: action.txHash });
    if (outcome === 'proven') log.info(extra, 'batch proof mined');
    else
      log.warn(
        { ...extra, status: action?.status },
        'batch proof did not take effect; proving its fills again',
      );
  }
}

/**
 * A fill whose transaction is confirmed in the ledger but whose receipt is gone (reorged away, its re-send given up)
 * never reaches depth: once the escrow settled or refunded the order, or its refund opened (fillDeadline +
 * settleGrace), nothing is left to prove and the row retires instead of waking the bot every second for good.
 */
async function goneForGood(deps: ProverDeps, fill: JournalFill, now: number): Promise<boolean> {
  if (fill.order.fillDeadline * 1000n >= BigInt(now)) return false;
  const input = await deps.chain(fill.inputChain);
  if (!input) return false;
  const c = deps.clientsFor(input);
  const status = await escrowStatus(c, fill.escrow, fill.orderHash);
  if (status === 'settled' || status === 'refunded') return true;
  const grace = await escrowSettleGrace(c, fill.escrow);
  return (fill.order.fillDeadline + grace) * 1000n < BigInt(now);
}

/**
 * Starts the batch window of fills now at depth; retires fills that failed for good. Returns the fills at depth and
 * how many still wait for theirs.
 */
async function noteDepth(deps: ProverDeps, fills: JournalFill[], now: number) {
  const { journal } = deps;
  const proofs = journal.proofs;
  const ready: JournalFill[] = [];
  let waiting = 0;
  for (const fill of fills) {
    if (fill.filledAt !== null) {
      ready.push(fill);
      continue;
    }
    const action = await journal.latestAction(fill.orderHash, 'fill');
    if (action && FAILED_FILL.has(action.status) && fill.order.fillDeadline * 1000n < BigInt(now)) {
      await proofs.setStatus([fill.orderHash], 'done');
      continue;
    }
    waiting++;
    if (action?.status !== 'confirmed') continue;
    const info = await deps.chain(fill.outputChain);
    const block = info && (await minedBlockOf(deps.clientsFor(info), action.txHash));
    if (!block) {
      if (await goneForGood(deps, fill, now)) {
        await proofs.setStatus([fill.orderHash], 'done');
        waiting--;
      }
      continue;
    }
    waiting--;
    await proofs.noteFilled(fill.orderHash, now, block);
    ready.push({ ...fill, filledAt: now, fillBlock: block });
  }
  return { ready, waiting };
}

/**
 * The fills of `candidates` that can be proven now, read from the input and output chains one fill at a time (one
 * failed read leaves only that fill for the next pass): one settled or refunded on the input chain is done; one no
 * longer on the output chain (a reorg) waits for its fill to be sent again, and is done once its fill deadline
 * passed (it can never be filled again). Oldest first, as given.
 */
async function provable(deps: ProverDeps, info: ChainInfo, inputInfo: ChainInfo, candidates: JournalFill[]) {
  const c = deps.clientsFor(info);
  const [escrows, fillTimes] = await Promise.all([
    Promise.allSettled(
      candidates.map((f) => escrowStatus(deps.clientsFor(inputInfo), f.escrow, f.orderHash)),
    ),
    Promise.allSettled(candidates.map((f) => fillTimeOf(c, info.fill as Hex, f.orderHash))),
  ]);
  const now = BigInt(Date.now());
  const done: Hex[] = [];
  const ok: JournalFill[] = [];
  candidates.forEach((f, i) => {
    const escrow = escrows[i];
    const fillTime = fillTimes[i];
    if (escrow?.status === 'fulfilled' && (escrow.value === 'settled' || escrow.value === 'refunded'))
      done.push(f.orderHash);
    else if (fillTime?.status !== 'fulfilled' || escrow?.status !== 'fulfilled') return;
    else if (fillTime.value !== 0n) ok.push(f);
    else if (f.order.fillDeadline * 1000n < now) done.push(f.orderHash);
  });
  await deps.journal.proofs.setStatus(done, 'done');
  const failed = [...escrows, ...fillTimes].find((r) => r.status === 'rejected');
  if (failed && ok.length === 0) throw failed.reason;
  return ok;
}

/** The fills of `batch` no proof message carried since its fill (anyone's): the others are marked proven. */
async function notProvenByOthers(deps: ProverDeps, info: ChainInfo, batch: JournalFill[]) {
  const from = batch.reduce(
    (min, f) => (f.fillBlock !== null && f.fillBlock < min ? f.fillBlock : min),
    2n ** 63n,
  );
  const proven = await provenSince(deps.clientsFor(info), info.fill as Hex, from);
  const byOthers = batch.filter((f) => proven.has(f.orderHash.toLowerCase()));
  await deps.journal.proofs.setStatus(
    byOthers.map((f) => f.orderHash),
    'proven',
  );
  if (byOthers.length > 0)
    deps.log.info(
      { orderHashes: byOthers.map((f) => f.orderHash) },
      'fills proven by someone else; not proving them',
    );
  return batch.filter((f) => !byOthers.includes(f));
}

export function createProver(deps: ProverDeps) {
  const { log } = deps;
  const proofs = deps.journal.proofs;
  /** Batches this process sent whose block it has not seen yet. */
  const sentPending = new Set<string>();

  /**
   * One prove(orders) for the first `size` provable fills of `candidates` (one route), written down with its batch
   * before it is broadcast. Returns how many provable fills it left for the next batch.
   */
  async function sendBatch(candidates: JournalFill[], size: number, report: PassReport): Promise<number> {
    const first = candidates[0] as JournalFill;
    const [info, inputInfo] = [await deps.chain(first.outputChain), await deps.chain(first.inputChain)];
    if (!info || !inputInfo)
      throw new LpBotError(`not proving: unknown chain ${first.outputChain} or ${first.inputChain}`);
    // Fills that cannot be proven now are dropped before the batch is chosen: they never hold its slots.
    const open = await provable(deps, info, inputInfo, candidates);
    const left = Math.max(0, open.length - size);
    // Equal input tokens next to each other: the escrow pays one transfer per run (prove-options.ts).
    const fills = (await notProvenByOthers(deps, info, open.slice(0, size))).sort((a, b) =>
      a.order.inputToken.toLowerCase().localeCompare(b.order.inputToken.toLowerCase()),
    );
    if (fills.length === 0) return left;
    const c = deps.clientsFor(info);
    const orders = fills.map((f) => f.order);
    const options = proveOptions(orders.length, tokenRunsOf(orders));
    const value = await quoteProve(c, info.fill as Hex, orders, first.escrow, options);
    const native = await c.public.getBalance({ address: deps.account.address });
    if (native < value)
      throw new LpBotError(
        `fill wallet holds ${native} wei on ${info.name}, the batch proof's fee is ${value}`,
        { retryable: true },
      );
    const batchId = `prove-${randomUUID()}`;
    const hashes = fills.map((f) => f.orderHash);
    const sent = await deps.transactions.submit({
      subject: batchId,
      kind: 'prove',
      call: { chain: info.name, to: info.fill as Hex, data: proveData(orders, first.escrow, options) },
      value,
      account: deps.account,
      guard: (trx) => proofs.claim(trx, batchId, info.name, hashes, Date.now()),
    });
    if (!sent) return left;
    const extra = { batchId, chain: info.name, fills: hashes.length, txHash: sent.outcome.txHash };
    log.info(extra, 'batch proof sent');
    if (sent.outcome.status === 'success') {
      await proofs.closeBatch(batchId, 'proven');
      report.proved.push({ batchId, orderHashes: hashes, txHash: sent.outcome.txHash });
    } else sentPending.add(batchId);
    return left;
  }

  return {
    /**
     * One pass: reconcile, then send every batch that is due. Returns when the next batch falls due (unix ms), or
     * null when no fill waits.
     */
    async provePass(
      report: PassReport,
      failed: (subject: string, error: unknown) => void,
    ): Promise<number | null> {
      await reconcile(deps, sentPending, report);
      const now = Date.now();
      const waiting = (await proofs.unproven()).filter((f) => f.batchId === null);
      const { ready, waiting: atDepthSoon } = await noteDepth(deps, waiting, now);
      const routes = new Map<string, JournalFill[]>();
      for (const fill of ready) routes.set(routeOf(fill), [...(routes.get(routeOf(fill)) ?? []), fill]);
      let dueAt: number | null = null;
      const size = Math.min(deps.proveBatch, MAX_PROOFS_PER_MESSAGE);
      for (const [route, fills] of routes) {
        const oldest = Math.min(...fills.map((f) => f.filledAt ?? now));
        if (fills.length < size && now < oldest + deps.proveAfterMs) {
          dueAt = Math.min(dueAt ?? Number.POSITIVE_INFINITY, oldest + deps.proveAfterMs);
          continue;
        }
        try {
          // More than one batch's worth waits: the next goes out in the next pass, at once.
          if ((await sendBatch(fills, size, report)) > 0) dueAt = now;
        } catch (error) {
          failed(`prove ${route}`, error);
        }
      }
      if (atDepthSoon > 0) dueAt = Math.min(dueAt ?? Number.POSITIVE_INFINITY, now + 1_000);
      return dueAt;
    },
  };
}
