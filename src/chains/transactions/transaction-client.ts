import type { Address, Hex, PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { isRetryable } from '../../domain/ferry-error.ts';
import type { TxCrashPoint } from '../../process/fault-injector.ts';
import { ChainError } from '../chain-error.ts';
import { createNonceGapRepair } from './nonce-gap-repair.ts';
import { estimateGasOrRevert } from './tx-estimate.ts';
import type { TxAction, TxLedger } from './tx-ledger.ts';
import { createTxReplacer, type TxReplacer } from './tx-replacer.ts';
import {
  createTxSender,
  NonceConflictError,
  sendingFees,
  type TxChainSettings,
  type TxLog,
  type TxMetrics,
  type TxOutcome,
  type TxSender,
  type TxStats,
} from './tx-sender.ts';

export interface TxCall {
  readonly chain: string;
  readonly to: Address;
  readonly data: Hex;
}

/** One new action: what it is for (`subject`, `kind`, `seq`), the call, and the sender's key. */
export interface SubmitInput<Guard> {
  readonly subject: string;
  readonly kind: string;
  /** 0 by default; a retry after a revert is the next. */
  readonly seq?: number;
  readonly call: TxCall;
  readonly value?: bigint;
  readonly account: PrivateKeyAccount;
  readonly guard: Guard;
}

/** What a sender (Ferry's worker, the LP bot) does with its transactions; `Guard` is its ledger's write guard. */
export interface TransactionClient<Guard> {
  stats(): Readonly<TxStats>;
  /**
   * Signs the call with a freshly allocated nonce and writes it down (with `guard`, run in the ledger's write,
   * deciding whether it may be), then broadcasts it and waits up to `receiptWaitMs` for its receipt. Null when
   * the guard refused and nothing was recorded or sent.
   */
  submit(input: SubmitInput<Guard>): Promise<{ action: TxAction; outcome: TxOutcome } | null>;
  /** One look at a recorded action. Throws NonceConflictError when its nonce went elsewhere. */
  advance(action: TxAction, account: PrivateKeyAccount): Promise<TxOutcome>;
  /** Like `advance`, but the action is no longer wanted: its nonce is spent on a zero-value self-transfer. */
  cancel(action: TxAction, account: PrivateKeyAccount): Promise<TxOutcome>;
  /**
   * Drives every unfinished action of `account` on `chain`, whatever became of what it was for: each is advanced,
   * or cancelled when `abandoned` says it is no longer wanted, so no nonce is ever stranded. Then repairs a nonce gap
   * below the lowest one (`guard` admits the gap's self-transfers into the ledger). Errors of one action are
   * reported to `onError` and do not stop the others.
   */
  drive(input: {
    chain: string;
    account: PrivateKeyAccount;
    /** The ids, among `open`, of actions no longer wanted. */
    abandoned: (open: readonly TxAction[]) => Promise<ReadonlySet<string>>;
    guard: Guard;
    onError: (action: TxAction | null, error: unknown) => void;
  }): Promise<{ driven: number; gapFilled: number }>;
}

/** What one look at a recorded action (step) works with. */
interface StepParts<Guard> {
  readonly ledger: TxLedger<Guard>;
  readonly chains: (name: string) => TxChainSettings;
  readonly log: TxLog;
  readonly now: () => number;
  readonly stats: TxStats;
  readonly metrics?: TxMetrics;
  readonly faults: { at(point: TxCrashPoint): void };
  readonly sender: TxSender;
  readonly replace: TxReplacer;
}

/**
 * One look at a recorded action: an outcome once a recorded transaction is mined at depth; otherwise the newest
 * is broadcast again (a wiped mempool, a reorg), or replaced with higher fees when it waited `replaceAfterSeconds`
 * or was refused as too cheap, or replaced by a cancel when `cancel` and it is not one yet.
 */
async function step<Guard>(
  parts: StepParts<Guard>,
  action: TxAction,
  account: PrivateKeyAccount,
  cancel: boolean,
): Promise<TxOutcome> {
  const { ledger, chains, log, now, stats, metrics, faults, replace } = parts;
  const { findMined, broadcast, conclude, waitForReceipt, nonceConsumed } = parts.sender;
  switch (action.status) {
    case 'confirmed':
      return { status: 'success', txHash: action.txHash };
    case 'reverted':
      return { status: 'reverted', txHash: action.txHash };
    case 'cancelled':
      return { status: 'cancelled', txHash: action.txHash };
    case 'nonce-conflict':
      throw new NonceConflictError(action.id, action.chain, action.nonce);
    case 'recorded':
      break;
  }
  const txs = await ledger.attempts(action.id);
  const newest = txs.at(-1);
  if (!newest) throw new ChainError(`chain action ${action.id} has no recorded transaction`);
  const mined = await findMined(action.chain, txs);
  if (mined) return conclude(action, mined);

  let waitingSince = action.waitingSince ?? newest.createdAt;
  const reorged = txs.find((tx) => tx.status === 'mined');
  if (reorged) {
    // It was in a block and no longer is: not done; broadcast again and give it a full wait.
    waitingSince = now();
    await ledger.restartWait(action.id, reorged.txHash, waitingSince);
    stats.reorged++;
    log.warn(
      { actionId: action.id, kind: action.kind, chain: action.chain, txHash: reorged.txHash },
      'a mined transaction left the canonical chain (reorg); broadcasting it again',
    );
  }
  const replaceAfterMs = chains(action.chain).replaceAfterSeconds * 1000;
  const toCancel = cancel && newest.purpose !== 'cancel';
  // A transaction no node has taken yet (the sender could not pay, the node was down) is not slow: it is only sent
  // again, or fees would compound for as long as the outage lasts.
  const slow = newest.status !== 'recorded' && now() - waitingSince >= replaceAfterMs;
  const why = toCancel ? 'cancel' : newest.status === 'underpriced' ? 'underpriced' : slow ? 'slow' : null;
  const replacement = why ? await replace(action, newest, account, why) : null;
  const current = replacement ?? newest;
  const answer = await broadcast(action, current);
  if (replacement) faults.at(`after-replace-send:${action.kind}`);
  else {
    stats.rebroadcasts++;
    metrics?.chainActionRetries.inc({ chain: action.chain, kind: action.kind });
  }
  if (answer === 'nonce-too-low') return nonceConsumed(action, replacement ? [...txs, replacement] : txs);
  if (replacement && answer === 'accepted') return waitForReceipt(action, replacement);
  return { status: 'pending', txHash: current.txHash };
}

/** Tries of a ledger write whose error is retryable (isRetryable): the nonce race, a dropped connection. */
const LEDGER_WRITE_TRIES = 3;

/**
 * Writes an action down; a write that failed retryably is tried again at once: one that lost the nonce race
 * (NonceRaceError) reads the winner's row the next time and takes the nonce after it. Nothing was sent before.
 */
async function recordRetrying<Guard>(
  ledger: TxLedger<Guard>,
  input: Parameters<TxLedger<Guard>['record']>[0],
) {
  for (let tries = 1; ; tries++) {
    try {
      return await ledger.record(input);
    } catch (error) {
      if (tries >= LEDGER_WRITE_TRIES || !isRetryable(error)) throw error;
    }
  }
}

/**
 * One client per sender process (Ferry's worker, the LP bot) for its transactions on every chain: nonces, fees,
 * signing, broadcast, replacement, cancellation and nonce-gap repair. Every transaction is written to the ledger
 * (bytes, hash, fees) before it is broadcast; one not mined within the chain's `replaceAfterSeconds` is replaced at
 * the same nonce with higher fees, and whichever recorded transaction is mined completes the action once it is
 * buried under the chain's `confirmations`. The client never waits on a chain for longer than `receiptWaitMs`;
 * every RPC call has the transport's timeout.
 */
export function createTransactionClient<Guard>(deps: {
  ledger: TxLedger<Guard>;
  chains: (name: string) => TxChainSettings;
  rpc: (name: string) => PublicClient;
  log: TxLog;
  faults?: { at(point: TxCrashPoint): void };
  /** Wall-clock time for the replacement timer (the node's mempool runs on real time). */
  now?: () => number;
  /**
   * How long a fresh broadcast waits for its receipt before the caller is told `pending`, per chain (default 1 s).
   * The wait holds the caller, so a caller woken by the chain's next block passes 0.
   */
  receiptWaitMs?: number | ((chain: string) => number);
  metrics?: TxMetrics;
}): TransactionClient<Guard> {
  const { ledger, log, metrics, rpc } = deps;
  const now = deps.now ?? Date.now;
  const faults = deps.faults ?? { at: () => {} };
  const receiptWait = deps.receiptWaitMs ?? 1_000;
  const receiptWaitMs = (chain: string) =>
    typeof receiptWait === 'number' ? receiptWait : receiptWait(chain);
  const stats: TxStats = {
    replacements: 0,
    rebroadcasts: 0,
    feeCapped: 0,
    reorged: 0,
    nonceConflicts: 0,
    cancelled: 0,
    gapsRepaired: 0,
  };
  /** Gaps already reported, per chain and sender: logged once, counted once. */
  const io = { ledger, chains: deps.chains, rpc, log, now, stats, ...(metrics ? { metrics } : {}) };
  const sender = createTxSender({ ...io, receiptWaitMs, faults });
  const { broadcast, waitForReceipt, nonceConsumed } = sender;
  const repairGap = createNonceGapRepair({ ...io, broadcast });
  const stepParts: StepParts<Guard> = { ...io, faults, sender, replace: createTxReplacer({ ...io, faults }) };

  return {
    stats: (): Readonly<TxStats> => ({ ...stats }),

    async submit(input) {
      const { call, account } = input;
      const settings = deps.chains(call.chain);
      const c = rpc(call.chain);
      // RPC work before a nonce is taken, so no ledger write waits on the network.
      // Estimated at the fees it will carry (priced at zero, a contract reading tx.gasprice answers otherwise).
      const [chainNonce, fees] = await Promise.all([
        c.getTransactionCount({ address: account.address, blockTag: 'pending' }),
        sendingFees(c, settings.maxFeePerGas),
      ]);
      const gas = await estimateGasOrRevert(c, input.kind, call, account.address, input.value, fees);
      const recorded = await recordRetrying(ledger, {
        action: {
          subject: input.subject,
          kind: input.kind,
          seq: input.seq ?? 0,
          chain: call.chain,
          from: account.address,
          at: now(),
        },
        chainNonce,
        guard: input.guard,
        sign: async (nonce) => ({
          rawTx: await account.signTransaction({
            chainId: settings.chainId,
            type: 'eip1559',
            to: call.to,
            data: call.data,
            value: input.value,
            nonce,
            gas: (gas * 12n) / 10n,
            ...fees,
          }),
          ...fees,
        }),
      });
      if (!recorded) return null;
      const { action, attempt } = recorded;
      faults.at(`after-record:${input.kind}`);
      const answer = await broadcast(action, attempt);
      metrics?.chainActionsSent.inc({ chain: call.chain, kind: input.kind });
      faults.at(`after-send:${input.kind}`);
      if (answer === 'nonce-too-low') return { action, outcome: await nonceConsumed(action, [attempt]) };
      if (answer !== 'accepted') return { action, outcome: { status: 'pending', txHash: attempt.txHash } };
      return { action, outcome: await waitForReceipt(action, attempt) };
    },

    advance: (action: TxAction, account: PrivateKeyAccount) => step(stepParts, action, account, false),

    cancel: (action: TxAction, account: PrivateKeyAccount) => step(stepParts, action, account, true),

    async drive(input: {
      chain: string;
      account: PrivateKeyAccount;
      abandoned: (open: readonly TxAction[]) => Promise<ReadonlySet<string>>;
      guard: Guard;
      onError: (action: TxAction | null, error: unknown) => void;
    }): Promise<{ driven: number; gapFilled: number }> {
      const open = await ledger.unfinished(input.chain, input.account.address);
      const abandoned = open.length > 0 ? await input.abandoned(open) : new Set<string>();
      for (const action of open) {
        try {
          await step(stepParts, action, input.account, abandoned.has(action.id));
        } catch (error) {
          input.onError(action, error);
        }
      }
      const lowest = open[0];
      let gapFilled = 0;
      if (lowest) {
        try {
          gapFilled = await repairGap(input.chain, input.account, lowest, input.guard);
        } catch (error) {
          input.onError(null, error);
        }
      }
      return { driven: open.length, gapFilled };
    },
  };
}
