import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ContractCall } from '../chains/settlement/contract-call.ts';
import type { TransactionClient } from '../chains/transactions/transaction-client.ts';
import type { TxAction } from '../chains/transactions/tx-ledger.ts';
import type { OrderStatus } from '../domain/lifecycle.ts';
import type { FaultInjector } from '../process/fault-injector.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import type { Database } from '../store/engine/schema.ts';
import {
  type ChainActionKind,
  findChainAction,
  mayRecord,
  revertedActionCounts,
} from '../store/ledgers/settlement-store.ts';
import { findServingAction, mayRecordShared } from '../store/ledgers/shared-actions-store.ts';
import type { LedgerGuard } from '../store/ledgers/tx-ledger-store.ts';

export type ActionOutcome =
  | { readonly status: 'stale' }
  | { readonly status: 'success'; readonly txHash: Hex }
  | { readonly status: 'reverted'; readonly txHash: Hex }
  | { readonly status: 'cancelled'; readonly txHash: Hex }
  | { readonly status: 'pending'; readonly txHash: Hex };

export type WorkerTransactions = TransactionClient<LedgerGuard<Database>>;

export interface ChainActionExecutor {
  /** The newest recorded action of this kind, if any: what reconciliation compares with the chain. */
  recorded(orderId: string, kind: ChainActionKind): Promise<TxAction | null>;
  /** How many of the order's actions of each kind reverted on chain: what bounds their retries. */
  reverted(orderId: string): Promise<Partial<Record<ChainActionKind, number>>>;
  /**
   * Sends the order's action of `kind` unless one is written down: then its state as the transaction pass left
   * it. `retry`: the newest one was spent without effect (reverted) and a new one (the next `seq`) is sent.
   * `expectStatus` is the order status this action belongs to: the action is written down only if the order
   * still has it (checked under the order's row lock on PostgreSQL), and a settle or refund only if no other
   * release of the escrow was written down before. Otherwise the outcome is `stale` and nothing is sent.
   */
  execute(input: {
    orderId: string;
    kind: ChainActionKind;
    call: ContractCall;
    account: PrivateKeyAccount;
    expectStatus: OrderStatus;
    retry?: boolean;
    /**
     * Other orders the action serves too (a batch's prove, its message's commit or execute), linked to it in the
     * same write (shared-actions-store.ts mayRecordShared): all or nothing, `stale` if any of them moved on.
     */
    others?: readonly string[];
  }): Promise<ActionOutcome>;
}

/** Kinds one action may do for several orders: a prove of a batch, the commit and execute of its one message. */
const SHARED_KINDS: ReadonlySet<ChainActionKind> = new Set(['prove', 'commit', 'execute']);

/** An order's newest action of a shared kind is its own or the one it is linked to. */
const serving = (database: FerryDatabase, orderId: string, kind: ChainActionKind) =>
  SHARED_KINDS.has(kind)
    ? findServingAction(database.db, orderId, kind)
    : findChainAction(database.db, orderId, kind);

/**
 * An order's deposit, settle or refund, sent through the transaction client: written down before it is
 * broadcast, then driven to its receipt by the worker's transaction pass (replaced with higher fees, broadcast
 * again, or cancelled once its order has ended), whatever the order does meanwhile. A call never waits for blocks
 * for long: `pending` means "look again on the next pass".
 */
export function createChainActionExecutor(deps: {
  database: FerryDatabase;
  transactions: WorkerTransactions;
  faults: FaultInjector;
}): ChainActionExecutor {
  const { database, transactions, faults } = deps;

  function outcomeOf(action: TxAction): ActionOutcome {
    switch (action.status) {
      case 'confirmed':
        return { status: 'success', txHash: action.txHash };
      case 'reverted':
      case 'nonce-conflict':
        return { status: 'reverted', txHash: action.txHash };
      case 'cancelled':
        return { status: 'cancelled', txHash: action.txHash };
      case 'recorded':
        return { status: 'pending', txHash: action.txHash };
    }
  }

  return {
    recorded: (orderId: string, kind: ChainActionKind) => serving(database, orderId, kind),

    reverted: (orderId: string) => revertedActionCounts(database.db, orderId),

    async execute(input: {
      orderId: string;
      kind: ChainActionKind;
      call: ContractCall;
      account: PrivateKeyAccount;
      expectStatus: OrderStatus;
      retry?: boolean;
      others?: readonly string[];
    }): Promise<ActionOutcome> {
      const { orderId, kind, others = [] } = input;
      const existing = await serving(database, orderId, kind);
      if (existing && !input.retry) return outcomeOf(existing);
      if (existing && existing.status === 'recorded') return outcomeOf(existing);
      // The next of the order's own (a linked one is another order's).
      const own =
        existing?.subject === orderId ? existing : await findChainAction(database.db, orderId, kind);
      const seq = own ? own.seq + 1 : 0;
      faults.at(`before-record:${kind}`);
      const sent = await transactions.submit({
        subject: orderId,
        kind,
        seq,
        call: input.call,
        ...(input.call.value === undefined ? {} : { value: input.call.value }),
        account: input.account,
        guard: (trx) =>
          others.length > 0
            ? mayRecordShared(trx, database.dialect, {
                leader: orderId,
                others,
                kind,
                seq,
                expectStatus: input.expectStatus,
              })
            : mayRecord(trx, database.dialect, { orderId, kind, seq, expectStatus: input.expectStatus }),
      });
      return sent ? sent.outcome : { status: 'stale' };
    },
  };
}
