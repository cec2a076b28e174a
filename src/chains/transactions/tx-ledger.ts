import type { Hex } from 'viem';

/**
 * What the transaction client writes down about the transactions it sends, and where. The client does not know
 * whose database this is: Ferry's worker keeps it in Ferry's store, the LP bot in a journal file of its own
 * (src/store/ledgers/tx-ledger-store.ts serves both). Every transaction is in the ledger before it is broadcast.
 */

/**
 * recorded (signed, maybe sent) → confirmed | reverted | cancelled (its nonce was spent on a zero-value
 * self-transfer instead), or nonce-conflict (the nonce went to a transaction the ledger never held).
 */
export type TxActionStatus = 'recorded' | 'confirmed' | 'reverted' | 'cancelled' | 'nonce-conflict';

/** recorded → sent | underpriced → mined (below depth) → confirmed | reverted */
export type TxAttemptStatus = 'recorded' | 'sent' | 'underpriced' | 'mined' | 'confirmed' | 'reverted';

/** `call`: the action's own transaction; `cancel`: a zero-value self-transfer that spends its nonce. */
export type TxPurpose = 'call' | 'cancel';

/** One thing a sender wants done on a chain with one nonce, however many transactions that takes. */
export interface TxAction {
  readonly id: string;
  /** What the action is for, in the owner's terms (Ferry: the order id; the LP bot: the order hash). */
  readonly subject: string;
  readonly kind: string;
  /** Tells apart the actions of one subject and kind: a retry after a revert is the next `seq`. */
  readonly seq: number;
  readonly chain: string;
  readonly from: Hex;
  readonly nonce: number;
  readonly status: TxActionStatus;
  /** The newest transaction, or the one that was mined once the action is finished. */
  readonly txHash: Hex;
  /** When the newest transaction started waiting to be mined: the replacement timer. */
  readonly waitingSince: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** One signed transaction of an action; replacements and a cancel share the action's nonce. */
export interface TxAttempt {
  readonly txHash: Hex;
  readonly actionId: string;
  readonly attempt: number;
  readonly rawTx: Hex;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly status: TxAttemptStatus;
  readonly purpose: TxPurpose;
  readonly createdAt: number;
}

export interface NewTxAction {
  readonly subject: string;
  readonly kind: string;
  readonly seq: number;
  readonly chain: string;
  readonly from: Hex;
  readonly at: number;
}

/** Signs the first transaction of an action once the ledger has handed out its nonce. */
export type SignAt = (nonce: number) => Promise<{
  readonly rawTx: Hex;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}>;

export interface TxLedger<Guard> {
  /**
   * In one write: runs `guard` (null when it refuses), hands out the sender's next nonce (at least `chainNonce`,
   * the chain's pending count) or takes `nonce` when given, signs with it, and writes the action and its first
   * transaction down.
   */
  record(input: {
    readonly action: NewTxAction;
    readonly chainNonce: number;
    readonly nonce?: number;
    readonly guard: Guard;
    readonly sign: SignAt;
    /** `cancel` for a transaction that only spends a nonce (gap repair); `call` by default. */
    readonly purpose?: TxPurpose;
  }): Promise<{ readonly action: TxAction; readonly attempt: TxAttempt } | null>;
  /** Every transaction signed for the action, oldest first. */
  attempts(actionId: string): Promise<TxAttempt[]>;
  /** Writes down a replacement unless another writer added an attempt after `previousAttempt` (false then). */
  recordReplacement(attempt: TxAttempt, previousAttempt: number): Promise<boolean>;
  setAttemptStatus(txHash: Hex, status: 'sent' | 'underpriced' | 'mined', now: number): Promise<void>;
  /**
   * The transaction waits in a mempool from `now` (status `sent`) and the replacement timer restarts: a node took it
   * for the first time (it may have been refused for a while, e.g. the sender could not pay), or it left the
   * canonical chain in a reorg.
   */
  restartWait(actionId: string, txHash: Hex, now: number): Promise<void>;
  /** The action's outcome, final: `txHash` was mined at depth (a cancel's success is `cancelled`). */
  finish(
    actionId: string,
    mined: { readonly txHash: Hex; readonly status: 'confirmed' | 'reverted' | 'cancelled' },
    now: number,
  ): Promise<void>;
  /** True only the first time, so hitting the fee cap is reported once per action. */
  markFeeCapped(actionId: string, now: number): Promise<boolean>;
  /** True only for the writer that marks it. */
  markNonceConflict(actionId: string, now: number): Promise<boolean>;
  /** The sender's actions still `recorded` on the chain, lowest nonce first. */
  unfinished(chain: string, from: Hex): Promise<TxAction[]>;
}
