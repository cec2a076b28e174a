import { type Hex, type PublicClient, type TransactionReceipt, TransactionReceiptNotFoundError } from 'viem';
import { type Fees, initialFees } from '../../domain/fee-bump.ts';
import { FerryError } from '../../domain/ferry-error.ts';
import type { TxCrashPoint } from '../../process/fault-injector.ts';
import { classifyRefusal } from './broadcast-refusal.ts';
import type { TxAction, TxAttempt, TxLedger } from './tx-ledger.ts';

export type TxOutcome =
  | { readonly status: 'pending'; readonly txHash: Hex }
  | { readonly status: 'success'; readonly txHash: Hex }
  | { readonly status: 'reverted'; readonly txHash: Hex }
  /** The action's nonce was spent on a zero-value self-transfer: its call never ran. */
  | { readonly status: 'cancelled'; readonly txHash: Hex };

export interface TxLog {
  info(data: object, message: string): void;
  warn(data: object, message: string): void;
  error(data: object, message: string): void;
}

/** What the client needs to know of a chain (Ferry's registry, or the LP bot's view of it). */
export interface TxChainSettings {
  readonly chainId: number;
  /** A mined transaction counts at this depth (1 = in the latest block). */
  readonly confirmations: number;
  /** A transaction not mined after this long is replaced with higher fees. */
  readonly replaceAfterSeconds: number;
  /** Replacements never raise maxFeePerGas above this (wei). */
  readonly maxFeePerGas: bigint;
}

type Labels = { chain: string; kind: string };
interface Count<L> {
  inc(labels: L): void;
}
/** Counters the client feeds (Ferry's /metrics; the LP bot passes none). */
export interface TxMetrics {
  readonly chainActionsSent: Count<Labels>;
  readonly chainActionRetries: Count<Labels>;
  readonly feeReplacements: Count<Labels>;
  readonly chainActionsCancelled: Count<Labels>;
  readonly nonceGapsRepaired: Count<{ chain: string }>;
}

/**
 * The action's nonce was consumed by a transaction the ledger never held (the key used elsewhere): none of its
 * recorded transactions can be mined any more. Reported once; the action is not retried.
 */
export class NonceConflictError extends FerryError {
  override readonly name = 'NonceConflictError';
  constructor(
    readonly actionId: string,
    readonly chain: string,
    readonly nonce: number,
  ) {
    super(
      `nonce ${nonce} of the sender on ${chain} was used by a transaction outside the ledger; ` +
        `chain action ${actionId} cannot be mined and is not retried`,
      { retryable: false },
    );
  }
}

/** Gas of a plain value transfer: what a cancel (zero value to oneself) costs. */
export const TRANSFER_GAS = 21_000n;

/**
 * The node's fee estimate, raised to what the next block will charge: viem's estimate reads the latest block, and
 * right after a base-fee jump a transaction priced from it is refused as underpriced, replaced 12.5 % at a time. The
 * pending block's base fee (geth, anvil) is the next block's; a node that does not tell leaves the estimate as is.
 */
export async function estimateFees(
  client: PublicClient,
): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
  const [estimate, pending] = await Promise.all([
    client.estimateFeesPerGas(),
    client.getBlock({ blockTag: 'pending' }).catch(() => null),
  ]);
  const next = pending?.baseFeePerGas;
  if (!next) return estimate;
  // As viem does with the latest base fee: 20 % of room for the block after, plus the tip.
  const floor = (next * 12n) / 10n + estimate.maxPriorityFeePerGas;
  return floor > estimate.maxFeePerGas ? { ...estimate, maxFeePerGas: floor } : estimate;
}

/**
 * The fees a first transaction on the chain carries now (the estimate, doubled for room, under `cap`). A simulation
 * or gas estimate runs with them too: a contract can tell a call priced at zero (`tx.gasprice == 0`) from the mined
 * transaction, and answer the two differently.
 */
export async function sendingFees(client: PublicClient, cap: bigint): Promise<Fees> {
  return initialFees(await estimateFees(client), cap);
}

/** What the client counts, for tests and logs. */
export interface TxStats {
  replacements: number;
  rebroadcasts: number;
  feeCapped: number;
  reorged: number;
  nonceConflicts: number;
  cancelled: number;
  gapsRepaired: number;
}

export type BroadcastAnswer = 'accepted' | 'underpriced' | 'nonce-too-low' | 'unfunded';

/** The chain side of the transaction client: receipts, broadcasts, depth, and what a used nonce means. */
export interface TxSender {
  findMined(
    chain: string,
    txs: readonly TxAttempt[],
  ): Promise<{ tx: TxAttempt; receipt: TransactionReceipt } | null>;
  broadcast(action: TxAction, tx: TxAttempt): Promise<BroadcastAnswer>;
  conclude(action: TxAction, mined: { tx: TxAttempt; receipt: TransactionReceipt }): Promise<TxOutcome>;
  waitForReceipt(action: TxAction, tx: TxAttempt): Promise<TxOutcome>;
  nonceConsumed(action: TxAction, txs: readonly TxAttempt[]): Promise<TxOutcome>;
}

/** The transaction's receipt, or null while it is in no block. */
async function receiptOn(client: PublicClient, hash: Hex): Promise<TransactionReceipt | null> {
  try {
    return await client.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return null;
    throw error;
  }
}

function warnUnfunded(log: TxLog, action: TxAction): void {
  log.warn(
    {
      actionId: action.id,
      kind: action.kind,
      chain: action.chain,
      from: action.from,
      nonce: action.nonce,
    },
    'the sender cannot pay for this transaction (insufficient funds); it stays recorded and is sent again',
  );
}

export function createTxSender(deps: {
  ledger: TxLedger<unknown>;
  chains: (name: string) => TxChainSettings;
  rpc: (name: string) => PublicClient;
  log: TxLog;
  now: () => number;
  receiptWaitMs: (chain: string) => number;
  stats: TxStats;
  metrics?: TxMetrics;
  faults: { at(point: TxCrashPoint): void };
}): TxSender {
  const { ledger, log, metrics, rpc, now, stats, receiptWaitMs, faults } = deps;
  /** Actions whose sender could not pay, warned about once each (they are broadcast again on every pass). */
  const unfundedWarned = new Set<string>();

  const receiptOf = (chain: string, hash: Hex) => receiptOn(rpc(chain), hash);

  /** The recorded transaction that is in a block now, if any (at most one can be: they share a nonce). */
  async function findMined(chain: string, txs: readonly TxAttempt[]) {
    const receipts = await Promise.all(txs.map((tx) => receiptOf(chain, tx.txHash)));
    const index = receipts.findIndex((r) => r !== null);
    const tx = txs[index];
    const receipt = receipts[index];
    return tx && receipt ? { tx, receipt } : null;
  }

  async function broadcast(action: TxAction, tx: TxAttempt): Promise<BroadcastAnswer> {
    let answer: BroadcastAnswer;
    try {
      await rpc(action.chain).sendRawTransaction({ serializedTransaction: tx.rawTx });
      answer = 'accepted';
    } catch (error) {
      const refusal = classifyRefusal(error);
      if (refusal === null) throw error;
      answer = refusal === 'known' ? 'accepted' : refusal;
    }
    if (answer === 'accepted' && tx.status === 'recorded') {
      // First taken by a node: "not mined in time" counts from now, not from a refusal (an unfunded sender) before.
      await ledger.restartWait(action.id, tx.txHash, now());
    } else if (answer === 'accepted' || answer === 'underpriced') {
      await ledger.setAttemptStatus(tx.txHash, answer === 'accepted' ? 'sent' : 'underpriced', now());
    }
    if (answer === 'unfunded' && !unfundedWarned.has(action.id)) {
      unfundedWarned.add(action.id);
      warnUnfunded(log, action);
    }
    return answer;
  }

  /** A mined transaction counts only at the chain's depth; until then the action stays pending. */
  async function conclude(
    action: TxAction,
    mined: { tx: TxAttempt; receipt: TransactionReceipt },
  ): Promise<TxOutcome> {
    const hash = mined.tx.txHash;
    const confirmations = BigInt(Math.max(1, deps.chains(action.chain).confirmations));
    // cacheTime 0: viem otherwise answers from a cache seconds old, and depth would lag.
    const latest = await rpc(action.chain).getBlockNumber({ cacheTime: 0 });
    if (latest - mined.receipt.blockNumber + 1n < confirmations) {
      if (mined.tx.status !== 'mined') await ledger.setAttemptStatus(hash, 'mined', now());
      return { status: 'pending', txHash: hash };
    }
    if (mined.tx.purpose === 'cancel') {
      await ledger.finish(action.id, { txHash: hash, status: 'cancelled' }, now());
      stats.cancelled++;
      metrics?.chainActionsCancelled.inc({ chain: action.chain, kind: action.kind });
      log.info(
        { actionId: action.id, kind: action.kind, chain: action.chain, nonce: action.nonce, txHash: hash },
        'cancelled: the nonce was spent on a zero-value self-transfer',
      );
      return { status: 'cancelled', txHash: hash };
    }
    const status = mined.receipt.status === 'success' ? 'confirmed' : 'reverted';
    await ledger.finish(action.id, { txHash: hash, status }, now());
    // Here, not where a caller reads the outcome: whichever path sees the receipt first (the step that sent, or the
    // transaction pass woken by a block) writes the outcome down, and a crash right after it must be testable on both.
    faults.at(`after-confirm:${action.kind}`);
    return { status: mined.receipt.status, txHash: hash };
  }

  async function waitForReceipt(action: TxAction, tx: TxAttempt): Promise<TxOutcome> {
    const deadline = now() + receiptWaitMs(action.chain);
    for (;;) {
      const receipt = await receiptOf(action.chain, tx.txHash);
      if (receipt) return conclude(action, { tx, receipt });
      if (now() >= deadline) return { status: 'pending', txHash: tx.txHash };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** `nonce too low`: either one of ours was mined meanwhile, or someone else took the nonce. */
  async function nonceConsumed(action: TxAction, txs: readonly TxAttempt[]): Promise<TxOutcome> {
    const mined = await findMined(action.chain, txs);
    if (mined) return conclude(action, mined);
    const newest = txs.at(-1) as TxAttempt;
    const count = await rpc(action.chain).getTransactionCount({ address: action.from, blockTag: 'latest' });
    if (count <= action.nonce) return { status: 'pending', txHash: newest.txHash };
    // Receipts once more: one of ours may have landed between the first look and the nonce count.
    const late = await findMined(action.chain, txs);
    if (late) return conclude(action, late);
    if (await ledger.markNonceConflict(action.id, now())) {
      stats.nonceConflicts++;
      log.error(
        {
          actionId: action.id,
          subject: action.subject,
          kind: action.kind,
          chain: action.chain,
          from: action.from,
          nonce: action.nonce,
          recordedTxs: txs.map((t) => t.txHash),
        },
        "the sender's nonce was used by a transaction outside the ledger; this chain action is abandoned",
      );
    }
    throw new NonceConflictError(action.id, action.chain, action.nonce);
  }

  return { findMined, broadcast, conclude, waitForReceipt, nonceConsumed };
}
