import {
  type Hex,
  keccak256,
  parseTransaction,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { type Fees, initialFees, replacementFees } from '../domain/fee-bump.ts';
import { newId } from '../domain/ids.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import {
  type ChainActionTx,
  finishChainAction,
  insertChainActionTx,
  listChainActionTxs,
  markChainActionTxReorged,
  markFeeCapped,
  markNonceConflict,
  recordReplacementTx,
  setChainActionTxStatus,
} from '../store/chain-action-txs-store.ts';
import type { FerryDatabase } from '../store/database.ts';
import type { StoreTransaction } from '../store/db-types.ts';
import {
  allocateNonce,
  type ChainAction,
  type ChainActionKind,
  insertChainAction,
} from '../store/settlement-store.ts';
import type { Chain, ChainRegistry } from './chain-registry.ts';
import type { ContractCall } from './settlement-chain.ts';
import { publicClientsFor } from './viem-client.ts';

/** Points around recording and sending where a crash test may kill the process. */
export type TxCrashPoint = `${
  | 'after-record'
  | 'after-send'
  | 'before-replace'
  | 'after-replace-record'
  | 'after-replace-send'}:${string}`;

export type TxOutcome =
  | { readonly status: 'pending'; readonly txHash: Hex }
  | { readonly status: 'success'; readonly txHash: Hex }
  | { readonly status: 'reverted'; readonly txHash: Hex };

interface TxLog {
  info(data: object, message: string): void;
  warn(data: object, message: string): void;
  error(data: object, message: string): void;
}

/**
 * The action's nonce was consumed by a transaction Ferry never signed (the relayer key used elsewhere):
 * none of its recorded transactions can be mined any more. Reported once; the action is not retried.
 */
export class NonceConflictError extends Error {
  constructor(
    readonly actionId: string,
    readonly chain: string,
    readonly nonce: number,
  ) {
    super(
      `nonce ${nonce} of the relayer on ${chain} was used by a transaction outside Ferry's records; ` +
        `chain action ${actionId} cannot be mined and is not retried`,
    );
    this.name = 'NonceConflictError';
  }
}

type BroadcastAnswer = 'accepted' | 'underpriced' | 'nonce-too-low';

/** Reads a node's refusal by meaning; the wording differs between geth, anvil and others. */
function classifyRefusal(error: unknown): BroadcastAnswer | 'known' | null {
  const text: string[] = [];
  for (let e: unknown = error, i = 0; e && i < 8; e = (e as { cause?: unknown }).cause, i++) {
    const { message, details } = e as { message?: unknown; details?: unknown };
    if (typeof message === 'string') text.push(message);
    if (typeof details === 'string') text.push(details);
  }
  const all = text.join(' ').toLowerCase();
  if (/already known|known transaction|already imported/.test(all)) return 'known';
  if (/nonce too low|nonce has already been used|nonce is too low/.test(all)) return 'nonce-too-low';
  if (
    /underpriced|less than block base fee|fee cap less than|feecap too low|max fee per gas less/.test(all)
  ) {
    return 'underpriced';
  }
  return null;
}

const feesOf = (tx: ChainActionTx): Fees => ({
  maxFeePerGas: BigInt(tx.max_fee_per_gas),
  maxPriorityFeePerGas: BigInt(tx.max_priority_fee_per_gas),
});

/**
 * One client per process for Ferry's own transactions on every registry chain: it owns nonces, fees,
 * signing, broadcast and replacement. Every transaction is written down (bytes, hash, fees) before it is
 * broadcast; a transaction not mined within the chain's `replaceAfterSeconds` is replaced at the same nonce
 * with higher fees, and whichever recorded transaction is mined completes the action, once it is buried
 * under the chain's `confirmations`.
 */
export function createTransactionClient(deps: {
  registry: ChainRegistry;
  database: FerryDatabase;
  log: TxLog;
  faults?: { at(point: TxCrashPoint): void };
  /** Wall-clock time for the replacement timer (the node's mempool runs on real time). */
  now?: () => number;
  /**
   * How long a fresh broadcast waits for its receipt before the caller is told `pending`, per chain (default 1 s).
   * The wait holds the caller's whole pass, so a caller that is woken by the chain's next block passes 0.
   */
  receiptWaitMs?: number | ((chain: string) => number);
  /** Counts actions sent, rebroadcasts, fee replacements and RPC errors (docs/metrics.md). */
  metrics?: FerryMetrics;
}) {
  const { registry, database, log, metrics } = deps;
  const now = deps.now ?? Date.now;
  const faults = deps.faults ?? { at: () => {} };
  const receiptWait = deps.receiptWaitMs ?? 1_000;
  const receiptWaitMs = (chain: string) =>
    typeof receiptWait === 'number' ? receiptWait : receiptWait(chain);
  const stats = { replacements: 0, rebroadcasts: 0, feeCapped: 0, reorged: 0, nonceConflicts: 0 };

  function chainOf(name: string): Chain {
    const chain = registry.chain(name);
    if (!chain) throw new Error(`chain ${name} is not in the registry`);
    return chain;
  }
  const client = publicClientsFor(registry, 10_000, metrics?.rpcErrors);

  async function receiptOf(chain: string, hash: Hex): Promise<TransactionReceipt | null> {
    try {
      return await client(chain).getTransactionReceipt({ hash });
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return null;
      throw error;
    }
  }

  /** The recorded transaction that is in a block now, if any (at most one can be: they share a nonce). */
  async function findMined(chain: string, txs: readonly ChainActionTx[]) {
    const receipts = await Promise.all(txs.map((tx) => receiptOf(chain, tx.tx_hash as Hex)));
    const index = receipts.findIndex((r) => r !== null);
    const tx = txs[index];
    const receipt = receipts[index];
    return tx && receipt ? { tx, receipt } : null;
  }

  async function broadcast(chain: string, tx: ChainActionTx): Promise<BroadcastAnswer> {
    let answer: BroadcastAnswer;
    try {
      await client(chain).sendRawTransaction({ serializedTransaction: tx.raw_tx as Hex });
      answer = 'accepted';
    } catch (error) {
      const refusal = classifyRefusal(error);
      if (refusal === null) throw error;
      answer = refusal === 'known' ? 'accepted' : refusal;
    }
    if (answer !== 'nonce-too-low') {
      await setChainActionTxStatus(
        database.db,
        tx.tx_hash,
        answer === 'accepted' ? 'sent' : 'underpriced',
        now(),
      );
    }
    return answer;
  }

  /** A mined transaction counts only at the chain's depth; until then the action stays pending. */
  async function conclude(
    action: ChainAction,
    mined: { tx: ChainActionTx; receipt: TransactionReceipt },
  ): Promise<TxOutcome> {
    const hash = mined.tx.tx_hash as Hex;
    const confirmations = BigInt(Math.max(1, chainOf(action.chain).confirmations));
    // cacheTime 0: viem otherwise answers from a cache seconds old, and depth would lag.
    const latest = await client(action.chain).getBlockNumber({ cacheTime: 0 });
    if (latest - mined.receipt.blockNumber + 1n < confirmations) {
      if (mined.tx.status !== 'mined') await setChainActionTxStatus(database.db, hash, 'mined', now());
      return { status: 'pending', txHash: hash };
    }
    const status = mined.receipt.status === 'success' ? 'confirmed' : 'reverted';
    await finishChainAction(database.db, action.id, { txHash: hash, rawTx: mined.tx.raw_tx, status }, now());
    return { status: mined.receipt.status, txHash: hash };
  }

  async function waitForReceipt(action: ChainAction, tx: ChainActionTx): Promise<TxOutcome> {
    const deadline = now() + receiptWaitMs(action.chain);
    for (;;) {
      const receipt = await receiptOf(action.chain, tx.tx_hash as Hex);
      if (receipt) return conclude(action, { tx, receipt });
      if (now() >= deadline) return { status: 'pending', txHash: tx.tx_hash as Hex };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** `nonce too low`: either one of ours was mined meanwhile, or someone else took the nonce. */
  async function nonceConsumed(action: ChainAction, txs: readonly ChainActionTx[]): Promise<TxOutcome> {
    const mined = await findMined(action.chain, txs);
    if (mined) return conclude(action, mined);
    const newest = txs.at(-1) as ChainActionTx;
    const count = await client(action.chain).getTransactionCount({
      address: action.from_address as Hex,
      blockTag: 'latest',
    });
    if (count <= Number(action.nonce)) return { status: 'pending', txHash: newest.tx_hash as Hex };
    // Receipts once more: one of ours may have landed between the first look and the nonce count.
    const late = await findMined(action.chain, txs);
    if (late) return conclude(action, late);
    if (await markNonceConflict(database.db, action.id, now())) {
      stats.nonceConflicts++;
      log.error(
        {
          actionId: action.id,
          orderId: action.order_id,
          kind: action.kind,
          chain: action.chain,
          from: action.from_address,
          nonce: Number(action.nonce),
          recordedTxs: txs.map((t) => t.tx_hash),
        },
        "the relayer's nonce was used by a transaction outside Ferry's records; this chain action is abandoned",
      );
    }
    throw new NonceConflictError(action.id, action.chain, Number(action.nonce));
  }

  /** Signs and writes down a replacement of `newest`; null when the fee cap leaves no room or another worker won. */
  async function replace(
    action: ChainAction,
    newest: ChainActionTx,
    account: PrivateKeyAccount,
  ): Promise<ChainActionTx | null> {
    const chain = chainOf(action.chain);
    const estimate = await client(action.chain).estimateFeesPerGas();
    const fees = replacementFees(feesOf(newest), estimate, chain.maxFeePerGas);
    if (!fees) {
      if (await markFeeCapped(database.db, action.id, now())) {
        stats.feeCapped++;
        log.warn(
          {
            actionId: action.id,
            orderId: action.order_id,
            kind: action.kind,
            chain: action.chain,
            maxFeePerGas: String(newest.max_fee_per_gas),
            estimate: String(estimate.maxFeePerGas),
          },
          "transaction is at the chain's fee cap (maxFeePerGasGwei); waiting for fees to fall",
        );
      }
      return null;
    }
    faults.at(`before-replace:${action.kind}`);
    const previous = parseTransaction(newest.raw_tx as Hex);
    const raw = await account.signTransaction({
      chainId: chain.chainId,
      type: 'eip1559',
      to: previous.to ?? undefined,
      data: previous.data,
      value: previous.value,
      nonce: Number(action.nonce),
      gas: previous.gas,
      ...fees,
    });
    const tx: ChainActionTx = {
      tx_hash: keccak256(raw),
      action_id: action.id,
      attempt: newest.attempt + 1,
      raw_tx: raw,
      max_fee_per_gas: fees.maxFeePerGas.toString(),
      max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString(),
      status: 'recorded',
      created_at: now(),
      broadcast_at: null,
    };
    const recorded = await database.transaction((trx) =>
      recordReplacementTx(trx, database.dialect, tx, newest.attempt),
    );
    if (!recorded) return null;
    faults.at(`after-replace-record:${action.kind}`);
    stats.replacements++;
    metrics?.feeReplacements.inc({ chain: action.chain, kind: action.kind });
    log.info(
      {
        actionId: action.id,
        kind: action.kind,
        chain: action.chain,
        attempt: tx.attempt,
        replaces: newest.tx_hash,
        txHash: tx.tx_hash,
        maxFeePerGas: tx.max_fee_per_gas,
      },
      'replacing a transaction that was not mined in time',
    );
    return tx;
  }

  return {
    stats: (): Readonly<typeof stats> => ({ ...stats }),

    /**
     * Signs the call with a freshly allocated nonce and writes it down inside one database transaction,
     * together with its action row, only if `guard` (run in that transaction) allows; then broadcasts it.
     * Null when the guard refused and nothing was recorded or sent.
     */
    async submit(input: {
      orderId: string;
      kind: ChainActionKind;
      call: ContractCall;
      account: PrivateKeyAccount;
      guard: (trx: StoreTransaction) => Promise<boolean>;
    }): Promise<TxOutcome | null> {
      const { call, account } = input;
      const chain = chainOf(call.chain);
      const c = client(call.chain);
      // RPC work before a nonce is taken, so no database lock waits on the network.
      const [chainNonce, gas, estimate] = await Promise.all([
        c.getTransactionCount({ address: account.address, blockTag: 'pending' }),
        c.estimateGas({ account: account.address, to: call.to, data: call.data }),
        c.estimateFeesPerGas(),
      ]);
      const fees = initialFees(estimate, chain.maxFeePerGas);
      const at = now();
      const recorded = await database.transaction(async (trx) => {
        if (!(await input.guard(trx))) return null;
        const nonce = await allocateNonce(trx, call.chain, account.address, chainNonce);
        const raw = await account.signTransaction({
          chainId: chain.chainId,
          type: 'eip1559',
          to: call.to,
          data: call.data,
          nonce,
          gas: (gas * 12n) / 10n,
          ...fees,
        });
        const action: ChainAction = {
          id: newId('act', new Date(at)),
          order_id: input.orderId,
          kind: input.kind,
          chain: call.chain,
          from_address: account.address,
          nonce,
          tx_hash: keccak256(raw),
          raw_tx: raw,
          status: 'recorded',
          created_at: at,
          updated_at: at,
          waiting_since: at,
          fee_capped_at: null,
        };
        const tx: ChainActionTx = {
          tx_hash: action.tx_hash,
          action_id: action.id,
          attempt: 0,
          raw_tx: raw,
          max_fee_per_gas: fees.maxFeePerGas.toString(),
          max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString(),
          status: 'recorded',
          created_at: at,
          broadcast_at: null,
        };
        await insertChainAction(trx, action);
        await insertChainActionTx(trx, tx);
        return { action, tx };
      });
      if (!recorded) return null;
      faults.at(`after-record:${input.kind}`);
      const answer = await broadcast(call.chain, recorded.tx);
      metrics?.chainActionsSent.inc({ chain: call.chain, kind: input.kind });
      faults.at(`after-send:${input.kind}`);
      if (answer === 'nonce-too-low') return nonceConsumed(recorded.action, [recorded.tx]);
      return waitForReceipt(recorded.action, recorded.tx);
    },

    /**
     * Moves a recorded action on by one look, without blocking on blocks: an outcome once a recorded
     * transaction is mined at depth; otherwise the newest is broadcast again (a wiped mempool, a reorg), or
     * replaced with higher fees when it waited `replaceAfterSeconds` or was refused as too cheap.
     * Throws NonceConflictError when the nonce went to a transaction outside Ferry's records.
     */
    async advance(action: ChainAction, account: PrivateKeyAccount): Promise<TxOutcome> {
      if (action.status === 'confirmed') return { status: 'success', txHash: action.tx_hash as Hex };
      if (action.status === 'reverted') return { status: 'reverted', txHash: action.tx_hash as Hex };
      if (action.status === 'nonce-conflict') {
        throw new NonceConflictError(action.id, action.chain, Number(action.nonce));
      }
      const txs = await listChainActionTxs(database.db, action.id);
      const newest = txs.at(-1);
      if (!newest) throw new Error(`chain action ${action.id} has no recorded transaction`);
      const mined = await findMined(action.chain, txs);
      if (mined) return conclude(action, mined);

      let waitingSince = action.waiting_since ?? newest.created_at;
      const reorged = txs.find((tx) => tx.status === 'mined');
      if (reorged) {
        // It was in a block and no longer is: not done; broadcast again and give it a full wait.
        waitingSince = now();
        await markChainActionTxReorged(database.db, action.id, reorged.tx_hash, waitingSince);
        stats.reorged++;
        log.warn(
          { actionId: action.id, kind: action.kind, chain: action.chain, txHash: reorged.tx_hash },
          'a mined transaction left the canonical chain (reorg); broadcasting it again',
        );
      }
      const replaceAfterMs = chainOf(action.chain).replaceAfterSeconds * 1000;
      const due = newest.status === 'underpriced' || now() - waitingSince >= replaceAfterMs;
      const replacement = due ? await replace(action, newest, account) : null;
      const current = replacement ?? newest;
      const answer = await broadcast(action.chain, current);
      if (replacement) faults.at(`after-replace-send:${action.kind}`);
      else {
        stats.rebroadcasts++;
        metrics?.chainActionRetries.inc({ chain: action.chain, kind: action.kind });
      }
      if (answer === 'nonce-too-low') return nonceConsumed(action, replacement ? [...txs, replacement] : txs);
      if (replacement && answer === 'accepted') return waitForReceipt(action, replacement);
      return { status: 'pending', txHash: current.tx_hash as Hex };
    },
  };
}

export type TransactionClient = ReturnType<typeof createTransactionClient>;
